#!/usr/bin/env python3
"""Generates the manual pages from the sources, so that they cannot go stale:

  onnxlegal.1  the tool: its --help and every command's --help, as the built tool prints them
  onnxlegal.3  the C API: every header's leading comment, then every OLG_API function with its
               prototype and the doc comment above it (a run of declarations under one comment
               shares it), and the option structs and types the comments refer to

usage: tools/gen_man.py --tool build/bin/onnxlegal --out DIR [--version X.Y.Z]
`make man` runs it into $(BUILD)/man; `make install` installs the pages in MANDIR.
tests/py/test_man.py renders both with `man -l` and fails when an exported function has no
entry or an empty one.
"""
import argparse
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER_ORDER = ["onnxlegal.h", "version.h", "status.h", "alloc.h", "dtype.h", "graph.h", "io.h",
                "diag.h", "check.h", "registry.h", "legalize.h", "nanopb.h"]


def esc(text):
    """Text for a groff line: backslashes escaped, no line starting with a control character."""
    out = []
    for line in text.split("\n"):
        line = line.replace("\\", "\\e")
        line = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in line)
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def pre(text):
    return ".PP\n.nf\n.RS 2\n" + esc(text.rstrip("\n")) + "\n.RE\n.fi\n"


def help_of(tool, *args):
    r = subprocess.run([tool] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("gen_man: %s %s failed: %s" % (tool, " ".join(args), r.stderr))
    return r.stdout


def page_tool(tool, version):
    top = help_of(tool, "--help")
    cmds = re.findall(r"^  ([a-z][a-z-]*)\s+(.*)$", top.split("commands:", 1)[1], re.M)
    s = ['.TH ONNXLEGAL 1 "" "onnxlegal %s" "User Commands"' % version,
         ".SH NAME", "onnxlegal \\- read, check, legalize, print and draw ONNX models",
         ".SH SYNOPSIS", ".B onnxlegal", ".I COMMAND", "[\\fIARGS\\fR...]", ".br",
         ".B onnxlegal", "\\-\\-version | \\-\\-help",
         ".SH DESCRIPTION", "This page is generated from the tool's own \\fB\\-\\-help\\fR texts.",
         pre(top), ".SH COMMANDS"]
    for name, summary in cmds:
        s += [".SS %s" % name, esc(summary), pre(help_of(tool, name, "--help"))]
    s += [".SH EXIT STATUS", "0 success; 1 the model is malformed or invalid; 2 usage or I/O error.",
          ".SH SEE ALSO", "\\fBonnxlegal\\fR(3), \\fBdot\\fR(1)"]
    return "\n".join(s) + "\n"


COMMENT = re.compile(r"/\*(.*?)\*/", re.S)


def clean_comment(body):
    lines = [re.sub(r"^\s*\* ?", "", l) for l in body.strip("\n").split("\n")]
    return "\n".join(l.rstrip() for l in lines).strip()


def parse_header(path):
    """(intro, [(name, prototype, doc)], [(type name, definition, doc)])"""
    text = open(path, encoding="utf-8").read()
    m = COMMENT.match(text)
    intro = clean_comment(m.group(1)) if m else ""
    pos = m.end() if m else 0
    funcs, types = [], []
    last_doc = ""  # the doc comment in force
    tokens = re.finditer(r"/\*.*?\*/|^OLG_API\b[^;]*;|typedef\s+(?:struct|enum)\s+\w+\s*\{.*?\}\s*(\w+)\s*;"
                         r"|typedef[^;{]*\(\s*\*\s*(\w+)\)[^;]*;", text[pos:], re.S | re.M)
    for t in tokens:
        tok = t.group(0)
        if tok.startswith("/*"):
            # a comment on its own: it documents what follows; one at the end of a declaration's
            # line (trailing) is appended to that declaration
            start = pos + t.start()
            line_start = text.rfind("\n", 0, start) + 1
            if text[line_start:start].strip() and funcs and funcs[-1][3] == line_start:
                name, proto, doc, _ = funcs[-1]
                funcs[-1] = (name, proto, (doc + "\n" if doc else "") + clean_comment(tok[2:-2]), -1)
            else:
                last_doc = clean_comment(tok[2:-2])
            continue
        start = pos + t.start()
        line_start = text.rfind("\n", 0, start) + 1
        if tok.startswith("OLG_API"):
            proto = " ".join(tok[len("OLG_API"):].split())
            nm = re.search(r"(\w+)\s*\(", proto)
            if nm:
                end_line = text.rfind("\n", 0, pos + t.end()) + 1
                funcs.append((nm.group(1), proto, last_doc, end_line))
        else:
            name = t.group(1) or t.group(2)
            types.append((name, tok.strip(), last_doc))
    return intro, [(n, p, d) for n, p, d, _ in funcs], types


def page_api(version):
    inc = os.path.join(ROOT, "include", "onnxlegal")
    names = [h for h in HEADER_ORDER if os.path.exists(os.path.join(inc, h))]
    names += sorted(h for h in os.listdir(inc) if h.endswith(".h") and h not in names)
    s = ['.TH ONNXLEGAL 3 "" "onnxlegal %s" "Library Functions"' % version,
         ".SH NAME", "onnxlegal \\- export computation graphs to ONNX and legalize ONNX models",
         ".SH SYNOPSIS", ".nf", ".B #include <onnxlegal/onnxlegal.h>", ".PP",
         "cc prog.c $(pkg-config \\-\\-cflags \\-\\-libs onnxlegal)", ".fi",
         ".SH DESCRIPTION",
         "This page is generated from the public headers' comments. Every function that can fail",
         "returns an \\fBolg_status\\fR (0 is \\fBOLG_OK\\fR) and \\fBolg_last_error\\fR() says",
         "what went wrong. The C++17 wrapper is \\fB<onnxlegal/onnxlegal.hpp>\\fR.",
         ]
    for h in names:
        intro, funcs, types = parse_header(os.path.join(inc, h))
        s += [".SH %s" % ("<onnxlegal/%s>" % h).upper().replace("<", "").replace(">", ""),
              ".PP", "\\fB#include <onnxlegal/%s>\\fR" % h]
        if intro:
            s.append(pre(intro))
        for name, definition, doc in types:
            s += [".SS %s (type)" % name, pre(definition)]
            if doc:
                s.append(pre(doc))
        for name, proto, doc in funcs:
            s += [".SS %s" % name, ".PP", ".nf", "\\fB" + esc(proto) + "\\fR", ".fi"]
            s.append(pre(doc) if doc else ".PP\n(undocumented)")
    s += [".SH SEE ALSO", "\\fBonnxlegal\\fR(1); docs/diagnostics.md and docs/aten-ops.md in the"
          " source tree"]
    return "\n".join(s) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", default="")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, text in (("onnxlegal.1", page_tool(args.tool, args.version)),
                       ("onnxlegal.3", page_api(args.version))):
        tmp = os.path.join(args.out, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(args.out, name))


if __name__ == "__main__":
    main()
