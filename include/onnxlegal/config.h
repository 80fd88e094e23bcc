/* onnxlegal — configurations that leave parts of the library out (issue 24).
 *
 * A device SDK that vendors the amalgamation (`make amalgamation`: onnxlegal.c and these
 * headers) defines some of these macros when it compiles onnxlegal.c, to leave out what it does
 * not use. They act on the amalgamation only: the shared and static libraries `make` builds are
 * always the whole library. docs/footprint.md has the code size of each configuration
 * (`make footprint`).
 *
 *   OLG_CONFIG_NO_READER           no protobuf reader: olg_model_read_file, olg_model_read_memory
 *   OLG_CONFIG_NO_PROTOBUF_WRITER  no default writer: olg_model_write_file/fd/callback, the
 *                                  write options, olg_model_rebase_external_data (the nanopb
 *                                  writer, -DOLG_WITH_NANOPB, is then the only writer)
 *   OLG_CONFIG_NO_LEGALIZE         no legalize: olg_legalize*, the registries, the profiles and
 *                                  the passes, with the symbolic functions and opset adapters
 *   OLG_CONFIG_NO_CHECK            no checker and no shape inference: olg_check*, olg_infer_shapes,
 *                                  the schema queries (onnxlegal/ops.h) and the ONNX schema
 *                                  tables; implies OLG_CONFIG_NO_LEGALIZE, which checks what it
 *                                  emits with the checker's rules
 *   OLG_CONFIG_NO_PRINTERS         no text and dot printers: olg_model_print_*
 *   OLG_CONFIG_MINIMAL             all of the above: the graph builder and the nanopb writer,
 *                                  what an on-device exporter needs (define OLG_WITH_NANOPB too)
 *
 * A function of a part left out is still there, with the same signature, and does nothing but
 * fail: it returns OLG_ERR_UNSUPPORTED (a pointer or number: NULL or 0; a void function returns)
 * with olg_last_error() naming the function and the macro, e.g. "olg_model_read_file: not in
 * this build of onnxlegal (OLG_CONFIG_NO_READER)". Out-parameters are not written. Why stubs
 * rather than no symbol: the symbol set stays the one abi/exports.txt lists, so the version
 * script, a prebuilt plugin linked against the full library and a binding that resolves every
 * symbol at load time all still link; the caller learns at run time, with a clear message, what
 * the build left out. A stub costs a few bytes of code each. */
#ifndef ONNXLEGAL_CONFIG_H
#define ONNXLEGAL_CONFIG_H

#ifdef OLG_CONFIG_MINIMAL
#  ifndef OLG_CONFIG_NO_READER
#    define OLG_CONFIG_NO_READER
#  endif
#  ifndef OLG_CONFIG_NO_PROTOBUF_WRITER
#    define OLG_CONFIG_NO_PROTOBUF_WRITER
#  endif
#  ifndef OLG_CONFIG_NO_CHECK
#    define OLG_CONFIG_NO_CHECK
#  endif
#  ifndef OLG_CONFIG_NO_PRINTERS
#    define OLG_CONFIG_NO_PRINTERS
#  endif
#endif

#if defined(OLG_CONFIG_NO_CHECK) && !defined(OLG_CONFIG_NO_LEGALIZE)
#  define OLG_CONFIG_NO_LEGALIZE
#endif

#endif
