/* onnxlegal — the command-line tool: what every subcommand shares.
 *
 * A subcommand is one function `int cli_<name>(int argc, char **argv)` in its own file
 * (argv[0] is the subcommand's name) plus one line in main.c's CLI_COMMANDS list. It prints its
 * own --help, and returns an exit status: CLI_OK, CLI_BAD_MODEL, or CLI_USAGE. */
#ifndef OLG_CLI_H
#define OLG_CLI_H
#include <stdio.h>

#include "onnxlegal/onnxlegal.h"

/* The target opsets as text, from the one place they are written (registry.h). */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)
#define CLI_OPSETS CLI_STR(OLG_LOWER_OPSET_MIN) ".." CLI_STR(OLG_LOWER_OPSET_MAX)
#define CLI_OPSETS_TO CLI_STR(OLG_LOWER_OPSET_MIN) " to " CLI_STR(OLG_LOWER_OPSET_MAX)

enum {
  CLI_OK = 0,
  CLI_BAD_MODEL = 1, /* the model is malformed or breaks a rule (parse, invalid, limit) */
  CLI_USAGE = 2      /* bad arguments, I/O failure, or anything else */
};

/* The exit status for a failed library call. */
int cli_exit_status(olg_status s);

/* Prints "onnxlegal: <cmd>: <what>: <olg_last_error()>" and returns cli_exit_status(s). */
int cli_fail(const char *cmd, olg_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* After a write refused for its size: names the command's option for external data. */
void cli_hint_external_data(const char *cmd, const char *option);

/* Prints "onnxlegal: <cmd>: <message>" and a hint to run --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when argv[1..] holds -h or --help (before a "--"). */
int cli_wants_help(int argc, char **argv);

/* Reads a model (path "-": standard input); on failure prints one message,
 * "onnxlegal: <cmd>: reading <path>: ...", and a plain hint when there is one (a truncated
 * file, a Git LFS pointer), and returns the exit status (else 0 with *out set). */
int cli_read_model(const char *cmd, const char *path, olg_model **out);
/* The same in parts: the read alone ("-": standard input, whose bytes live until exit) ... */
olg_status cli_load_model(const char *path, olg_model **out);
/* ... the failure's message (with the library's hint), returning the exit status ... */
int cli_read_failed(const char *cmd, const char *path, olg_status s);

/* An olg_write_fn that writes to a FILE * (ud); fails on a short write. */
int cli_write_file(void *ud, const void *data, size_t n);

/* Opens path for writing ("-" or NULL: standard output); NULL with the message printed. */
FILE *cli_open_output(const char *cmd, const char *path);
/* Closes a stream from cli_open_output, flushing; returns 0 or prints the error and returns
 * CLI_USAGE. */
int cli_close_output(const char *cmd, const char *path, FILE *f);

/* The value's type for people: "float[N,3]", "int64[]" (a scalar), "float[*]" (rank unknown),
 * "?" (no tensor type). Writes at most cap bytes (cut with "..."). */
void cli_format_type(const olg_graph *g, olg_value v, char *buf, size_t cap);

/* The ops the main graph uses, most frequent first, each with the lowest target opset it
 * converts to (and natively, when later): "nodes: N" and one line per op (info), or a table
 * (table 1, `ops MODEL`); then the lowest opset for the whole model. */
int cli_print_model_ops(const olg_model *m, int table);

#endif
