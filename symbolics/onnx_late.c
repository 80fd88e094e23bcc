/* onnxlegal — ONNX-domain ops of opset 18 and later that have no aten counterpart, below their
 * opset: CenterCropPad (18) as Slice and Pad, TensorScatter (24, the KV-cache update) as
 * ScatterElements. Each is registered at 7 and handed to the pass-through at its own opset
 * (opsets/opsetNN.c). */
#include <string.h>

#include "emit.h"
#include "../lib/lower.h"
#include "symbolics.h"

#define UNUSED_SRC (void)src; (void)ud

/* CenterCropPad (18) below 18: on dims known at export time, a Slice of the centred window
 * (start rounded down) where the target is smaller, a zero Pad (the odd pixel at the end) where
 * it is larger. */
olg_status olg__sym_onnx_center_crop_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, sv, y;
  const int64_t *want, *axes = NULL;
  size_t n, na = 0;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &sv));
  if (!olg__known_ints(cx, sv, &want, &n))
    return olg_lower_unsupported(cx, "CenterCropPad with a shape computed at run time", 18);
  int32_t r = olg__rank(cx, x);
  bool has_axes = olg__src_attr_ints(cx, "axes", &axes, &na);
  if (r < 0 || r > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "CenterCropPad of an input of unknown rank", 18);
  if ((has_axes ? na : (size_t)r) != n)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "CenterCropPad: shape has %zu values for %zu axes",
                     n, has_axes ? na : (size_t)r);
  int64_t starts[OLG_MAX_RANK], ends[OLG_MAX_RANK], sax[OLG_MAX_RANK], pads[2 * OLG_MAX_RANK] = {0};
  size_t ns = 0;
  bool pad = false;
  for (size_t i = 0; i < n; i++) {
    int64_t a = has_axes ? axes[i] : (int64_t)i;
    if (a < 0) a += r;
    int64_t d = a >= 0 && a < r ? olg__dim(cx, x, (int32_t)a) : -1;
    if (a < 0 || a >= r || want[i] < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "CenterCropPad: an axis or a size is out of range");
    if (d < 0)
      return olg_lower_unsupported(cx, "CenterCropPad of a dim whose size is not known at export "
                                       "time", 18);
    if (want[i] < d) {
      starts[ns] = (d - want[i]) / 2;
      ends[ns] = starts[ns] + want[i];
      sax[ns++] = a;
    } else if (want[i] > d) {
      pads[a] = (want[i] - d) / 2;
      pads[a + r] = want[i] - d - pads[a];
      pad = true;
    }
  }
  OLG_TRY(olg_lower_decompose(cx, "CenterCropPad as Slice and Pad", 18));
  y = x;
  if (ns) OLG_TRY(olg__emit_slice(cx, y, starts, ends, sax, NULL, ns, &y));
  if (pad) OLG_TRY(olg__emit_pad(cx, y, "constant", pads, 2 * (size_t)r, 0.0, &y));
  if (!ns && !pad) OLG_TRY(olg__emit_identity(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* TensorScatter (24) below 24: the update written at write_indices[b] + s (mod the cache's
 * length in circular mode) along the sequence axis is a ScatterElements (Scatter from 9) whose
 * indices are that position broadcast over the update's shape. The update's sequence length (and
 * in circular mode the cache's) must be known at export time. */
olg_status olg__sym_onnx_tensor_scatter(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value past, upd, w = OLG_NO_VALUE, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &past));
  OLG_TRY(olg_lower_arg_value(cx, 1, &upd));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &w));
  int32_t r = olg__rank(cx, upd);
  int64_t axis = olg__src_attr_int(cx, "axis", -2);
  if (r < 2 || r > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "TensorScatter of an update whose rank is not known", 24);
  if (axis < 0) axis += r;
  if (axis <= 0 || axis >= r)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "TensorScatter: axis must name a dim other "
                                                      "than the batch dim");
  const char *mode = olg__src_attr_string(cx, "mode", "linear");
  bool circular = strcmp(mode, "circular") == 0;
  if (!circular && strcmp(mode, "linear") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "TensorScatter: unknown mode '%s'", mode);
  int64_t len = olg__dim(cx, upd, (int32_t)axis), max = olg__dim(cx, past, (int32_t)axis);
  if (len < 0 || (circular && max <= 0))
    return olg_lower_unsupported(cx, "TensorScatter whose update length (or, circular, cache "
                                     "length) is not known at export time", 24);
  if (len > ((int64_t)1 << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "TensorScatter: the update is too long");
  OLG_TRY(olg_lower_decompose(cx, "TensorScatter as ScatterElements", 24));
  int64_t *ar = olg__lower_alloc(cx, (size_t)(len ? len : 1) * sizeof *ar);
  if (!ar) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < len; i++) ar[i] = i;
  olg_value idx;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){1, len}, ar,
                                 (size_t)len * sizeof *ar, &idx)); /* [1, L] */
  if (w != OLG_NO_VALUE) { /* [B, 1] + [1, L] */
    olg_value wb;
    OLG_TRY(olg__emit_cast(cx, w, OLG_INT64, &wb));
    OLG_TRY(olg__emit_unsqueeze(cx, wb, (const int64_t[]){1}, 1, &wb));
    OLG_TRY(olg__emit2(cx, "Add", wb, idx, &idx));
  }
  if (circular) { /* i - (i / M) * M: the indices are >= 0, so Div is a floor */
    olg_value m, q;
    OLG_TRY(olg__const_scalar(cx, OLG_INT64, (double)max, &m));
    OLG_TRY(olg__emit2(cx, "Div", idx, m, &q));
    OLG_TRY(olg__emit2(cx, "Mul", q, m, &q));
    OLG_TRY(olg__emit2(cx, "Sub", idx, q, &idx));
  }
  int64_t ax[OLG_MAX_RANK]; /* [B, L] to rank r: unsqueezed at every dim but 0 and axis */
  size_t na = 0;
  for (int64_t i = 1; i < r; i++)
    if (i != axis) ax[na++] = i;
  if (na) OLG_TRY(olg__emit_unsqueeze(cx, idx, ax, na, &idx));
  olg_value shape;
  OLG_TRY(olg__shape(cx, upd, &shape));
  OLG_TRY(olg__emit_expand(cx, idx, shape, &idx));
  OLG_TRY(olg__emit_scatter_elements(cx, past, idx, upd, axis, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}
