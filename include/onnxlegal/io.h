/* onnxlegal — reading and writing models (protobuf wire format, text, Graphviz). */
#ifndef ONNXLEGAL_IO_H
#define ONNXLEGAL_IO_H
#include <stddef.h>
#include <stdint.h>
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sink for streamed output: returns 0 when all n bytes were taken, non-zero to stop the
 * writer (which then fails with OLG_ERR_CALLBACK). */
typedef int (*olg_write_fn)(void *ud, const void *data, size_t n);

typedef struct olg_read_options {
  size_t size;                    /* sizeof(olg_read_options) */
  const olg_allocator *allocator; /* NULL: malloc */
  /* Where the locations of external data are resolved; NULL: the model file's directory (for
   * olg_model_read_memory, external data is then refused). A location must be a relative path
   * without "..", empty components or symbolic links (OLG_ERR_INVALID_MODEL otherwise), and its
   * offset and length must lie within the file. Each distinct file is mapped once; tensor data
   * points into the mapping. */
  const char *external_data_dir;
  int load_external_data;         /* default 1: map external data files; 0: keep references only */
} olg_read_options;
#define OLG_READ_OPTIONS_INIT {sizeof(olg_read_options), OLG_NULLPTR, OLG_NULLPTR, 1}
OLG_API void olg_read_options_init(olg_read_options *opts);

/* Reads a model. The file is mapped and tensor data stays in the mapping until the model is
 * freed. Malformed input fails with OLG_ERR_PARSE and a message naming what and where (message,
 * field, byte offset); nesting deeper than the reader's limit (about 60 levels of subgraphs) and
 * tensor dims whose product overflows fail with OLG_ERR_LIMIT. Whatever the IR does not hold --
 * unknown fields, functions, training info, sparse tensors, device configurations -- is kept and
 * written back unchanged. */
OLG_API olg_status olg_model_read_file(olg_model **out, const char *path,
                                       const olg_read_options *opts);
/* Reads a model from memory. The bytes are borrowed: they must outlive the model. */
OLG_API olg_status olg_model_read_memory(olg_model **out, const void *data, size_t n,
                                         const olg_read_options *opts);

typedef struct olg_write_options {
  size_t size; /* sizeof(olg_write_options) */
  /* When set, tensors (initializers and tensor attributes, in every graph) of at least
   * external_data_threshold bytes are written to this one file, named relative to the model's
   * directory (no absolute path, no ".."), at offsets aligned to 64 bytes (4096 for tensors of
   * 64 KiB or more); the file is written beside and renamed into place when all went well.
   * When not set, tensors that were read from external data are written inline, so the model
   * stands alone wherever it is written; tensors whose external data was not loaded
   * (load_external_data = 0) keep their references as they were. */
  const char *external_data;
  uint64_t external_data_threshold; /* default 1024 */
  /* Directory the external data file is written in, for olg_model_write_fd/_callback (for
   * olg_model_write_file it is the model's directory). */
  const char *external_data_dir;
} olg_write_options;
#define OLG_WRITE_OPTIONS_INIT {sizeof(olg_write_options), OLG_NULLPTR, 1024, OLG_NULLPTR}
OLG_API void olg_write_options_init(olg_write_options *opts);
/* Write options on the heap, for callers that pass only pointers and scalars (ctypes): _new
 * gives the defaults, the setters copy their strings, _free releases both (NULL is a no-op).
 * Only pointers from olg_write_options_new may be given to the setters and to _free. */
OLG_API olg_status olg_write_options_new(olg_write_options **out);
OLG_API void olg_write_options_free(olg_write_options *opts);
/* file NULL turns external data off. */
OLG_API olg_status olg_write_options_set_external_data(olg_write_options *opts, const char *file,
                                                       uint64_t threshold);
OLG_API olg_status olg_write_options_set_external_data_dir(olg_write_options *opts,
                                                           const char *dir);

/* Writes the model in the protobuf wire format, streaming: the serialized model is never held
 * in memory whole, and tensor bytes go straight from the tensor's memory to the sink. Fields are
 * written in ONNX's canonical order, so a model read from a canonically serialized file is
 * written back byte for byte. A node that still has literal arguments (a source-domain node not
 * lowered) is refused with OLG_ERR_UNSUPPORTED naming it, a node still open with
 * OLG_ERR_STATE; more than 2 GiB of protobuf (the limit of protobuf readers) fails with
 * OLG_ERR_LIMIT: use external data.
 * olg_model_write_file writes a temporary file beside path and renames it over path; a path that
 * names a device, pipe or socket (/dev/stdout, a FIFO) is written into directly (without
 * external data), a directory refused. */
OLG_API olg_status olg_model_write_file(const olg_model *m, const char *path,
                                        const olg_write_options *opts);
OLG_API olg_status olg_model_write_fd(const olg_model *m, int fd, const olg_write_options *opts);
OLG_API olg_status olg_model_write_callback(const olg_model *m, olg_write_fn fn, void *ud,
                                            const olg_write_options *opts);

/* A model read with load_external_data = 0 keeps its external-data references, relative to the
 * directory it was read from: this makes every such reference relative to to_dir instead (the
 * directory a model is about to be written in), so that the written model refers to the same
 * data files and not one weight byte is read or copied. A tensor borrowed from another model (a
 * converted model's) is replaced by a copy: the other model is not changed. Refused
 * (OLG_ERR_UNSUPPORTED, the references unchanged) where a data file is not beneath to_dir: ONNX
 * locations are relative and may not climb out with "..". */
OLG_API olg_status olg_model_rebase_external_data(olg_model *m, const char *from_dir,
                                                  const char *to_dir);

/* The model in ONNX's textual syntax (onnx-spec Syntax.md). */
OLG_API olg_status olg_model_print_text(const olg_model *m, olg_write_fn fn, void *ud);
/* The same, with every tensor (initializer or tensor attribute) of more than max_elements
 * elements printed as "{... N elements elided}" instead of its data, for people reading a
 * model with large weights (the result is then not valid syntax, on purpose). 0: print all. */
OLG_API olg_status olg_model_print_text_elided(const olg_model *m, uint64_t max_elements,
                                               olg_write_fn fn, void *ud);
/* The main graph as a Graphviz digraph. */
OLG_API olg_status olg_model_print_dot(const olg_model *m, olg_write_fn fn, void *ud);
/* What a conversion changed: after's main graph as a digraph, each node coloured by how it
 * relates to before's (kept: same name and op; rewritten: emitted for a source node, named
 * "<source>/<Op>[_k]" as olg_legalize names them, or copied from one of another op; added: no
 * source node), before's nodes that nothing was emitted for drawn apart as removed, and the
 * four counts as the graph's label. Nodes are matched by name ("name#N" as "name"), an unnamed
 * one by its first output's name. */
OLG_API olg_status olg_model_print_dot_diff(const olg_model *before, const olg_model *after,
                                            olg_write_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif
