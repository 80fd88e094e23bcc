/* onnxlegal — the one DFT emitter (internal), defined in symbolics/emit_dft.c, shared by ONNX
 * DFT (symbolics/onnx.c) and torch.fft's aten ops (symbolics/signal.c).
 *
 * A complex value is carried as a real tensor whose last dim is 2 (real, imaginary), as ONNX
 * DFT writes it; a real signal has a last dim of 1. */
#ifndef OLG_SYMBOLICS_EMIT_DFT_H
#define OLG_SYMBOLICS_EMIT_DFT_H
#include "emit.h"

typedef enum olg_dft_kind {
  OLG_DFT_C2C, /* complex (or real, last dim 1) in, complex out: ONNX DFT */
  OLG_DFT_C2R  /* a onesided (Hermitian) spectrum in, the real signal out (irfft): no last dim */
} olg_dft_kind;

typedef struct olg_dft {
  olg_dft_kind kind;
  int64_t axis;        /* the signal's axis, in [0, rank - 1) (the last dim holds components) */
  olg_value axis_value; /* a run-time axis (an int64 scalar) instead, or OLG_NO_VALUE: only
                           where the target's DFT takes an axis input */
  bool inverse;        /* the inverse transform, scaled by 1/n as ONNX DFT does */
  bool onesided;       /* keep n/2 + 1 bins (a real forward transform) */
  olg_value length;    /* dft_length (a 0-D or 1-element int64), or OLG_NO_VALUE: the axis' size;
                          longer pads with zeros, shorter truncates. C2R: the output length */
  double scale;        /* a further factor on the result (torch's norm), 1 for ONNX DFT */
} olg_dft;

/* The transform of x: the DFT op where the target has it (the axis as an attribute or an input,
 * as its version takes it) and the kind is C2C, else (below 17, or C2R) an exact decomposition
 * for a length and axis known at conversion time: MatMuls by constant cosine and sine matrices
 * computed in double and stored in x's float type (float or double); a C2C length known only
 * at run time computes them in the graph in x's type (Range, Cos, Sin: from 9); else a refusal
 * saying why. */
olg_status olg__emit_dft(olg_lower *cx, const olg_dft *p, olg_value x, olg_value *out);

#endif
