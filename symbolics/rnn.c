/* onnxlegal — recurrence: lstm, gru, rnn_tanh, rnn_relu (the aten "input" overloads).
 *
 *   lstm(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
 *        float dropout, bool train, bool bidirectional, bool batch_first) -> (output, hy, cy)
 *   gru / rnn_tanh / rnn_relu(Tensor input, Tensor hx, Tensor[] params, ...same...)
 *        -> (output, hy)
 *
 * params holds, for each layer and then each direction, w_ih [G*H, in], w_hh [G*H, H] and, with
 * biases, b_ih [G*H], b_hh [G*H] (G gates: LSTM 4, GRU 3, RNN 1). hx is [layers*dirs, B, H].
 *
 * Each layer becomes one ONNX LSTM / GRU / RNN node (every opset from 7), with the gates
 * reordered: PyTorch's LSTM blocks are (i, f, g, o) and ONNX's (i, o, f, c); GRU's (r, z, n) and
 * ONNX's (z, r, h), with linear_before_reset=1, which is PyTorch's GRU. W, R and B are built per
 * layer from both directions: when the weights are known at export time (initializers) the
 * reordered tensors are computed here as new constants; otherwise with Split/Concat in the
 * graph. A layer's Y [T, dirs, B, H] becomes the next layer's input [T, B, dirs*H];
 * batch_first input and output are transposed around the stack. The packed-sequence ".data"
 * overloads and LSTM projections (proj_size) have no ONNX equivalent and are refused. */
#include <string.h>

#include "emit.h"
#include "emit_src.h"
#include "symbolics.h"
#include "../lib/lower.h"


typedef enum { CELL_LSTM, CELL_GRU, CELL_RNN_TANH, CELL_RNN_RELU } cell_kind;

typedef struct rnn {
  cell_kind kind;
  int gates;            /* G */
  const int *perm;      /* ONNX gate i comes from PyTorch gate perm[i] */
  olg_value x;          /* [T, B, I] after batch_first */
  const olg_value *hx;  /* h0 (and c0 for LSTM), or none */
  size_t n_hx;
  const olg_value *params;
  size_t n_params;
  int has_biases, bidirectional, batch_first;
  int64_t layers, dirs, hidden;
} rnn;

static const int perm_lstm[4] = {0, 3, 1, 2};
static const int perm_gru[3] = {1, 0, 2};
static const int perm_rnn[1] = {0};

static const char *op_name(cell_kind k) {
  return k == CELL_LSTM ? "LSTM" : k == CELL_GRU ? "GRU" : "RNN";
}

/* The tensor [dirs, K*G*H, rest...] made of srcs[d*K + j] (j < K, each [G*H, rest...]) with the
 * gate blocks of each reordered, the K pieces of a direction concatenated along rows. */
static olg_status pack(olg_lower *cx, const rnn *r, const olg_value *srcs, int k_per_dir,
                       olg_value *out) {
  int64_t gh = r->gates * r->hidden;
  size_t n = (size_t)(r->dirs * k_per_dir);
  bool known = true;
  for (size_t i = 0; i < n; i++) {
    const olg_tensor *t = olg__known(cx, srcs[i]);
    known = known && t && t->data; /* not external data that was never loaded */
  }
  olg_dtype dt = olg__dtype(cx, srcs[0]);
  int32_t rank = olg__rank(cx, srcs[0]);
  for (size_t i = 0; i < n; i++)
    if (olg__dtype(cx, srcs[i]) != dt || olg__rank(cx, srcs[i]) != rank || rank < 1 ||
        olg__dim(cx, srcs[i], 0) != gh)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: a weight or bias does not have %lld rows "
                       "(gates x hidden_size) or the dtype of the others", op_name(r->kind),
                       (long long)gh);
  int64_t row = 1; /* elements per row */
  for (int32_t d = 1; d < rank; d++) {
    int64_t v = olg__dim(cx, srcs[0], d);
    if (v < 0) { known = false; row = -1; break; }
    row *= v;
  }
  if (known) {
    size_t esz = (size_t)olg_dtype_nbytes(dt, 1);
    if (!esz) return olg__errf(cx, OLG_ERR_TYPE, "%s: weights of dtype %s", op_name(r->kind),
                               olg_dtype_name(dt));
    size_t block = (size_t)(r->hidden * row) * esz, piece = (size_t)r->gates * block;
    size_t total = n * piece;
    uint8_t *buf = olg__lower_alloc(cx, total ? total : 1);
    if (!buf) return OLG_ERR_NOMEM;
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) {
      const olg_tensor *t = olg__known(cx, srcs[i]);
      if (t->nbytes != piece)
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: a weight holds %zu bytes, not %zu",
                         op_name(r->kind), t->nbytes, piece);
      for (int g = 0; g < r->gates; g++, p += block)
        memcpy(p, (const uint8_t *)t->data + (size_t)r->perm[g] * block, block);
    }
    int64_t dims[OLG_MAX_RANK];
    dims[0] = r->dirs;
    dims[1] = k_per_dir * gh;
    for (int32_t d = 1; d < rank; d++) dims[d + 1] = olg__dim(cx, srcs[0], d);
    return olg__const_tensor_kept(cx, dt, rank + 1, dims, buf, total, out);
  }
  /* in the graph: Split into gate blocks, Concat reordered, then the directions stacked */
  olg_value per_dir[2];
  for (int64_t d = 0; d < r->dirs; d++) {
    olg_value pieces[8];
    size_t np = 0;
    for (int j = 0; j < k_per_dir; j++) {
      olg_value src = srcs[d * k_per_dir + j], blocks[4];
      int64_t sizes[4] = {r->hidden, r->hidden, r->hidden, r->hidden};
      if (r->gates == 1) {
        pieces[np++] = src;
        continue;
      }
      OLG_TRY(olg__emit_split(cx, src, 0, sizes, (size_t)r->gates, blocks));
      for (int g = 0; g < r->gates; g++) pieces[np++] = blocks[r->perm[g]];
    }
    olg_value cat;
    OLG_TRY(olg__emit_concat(cx, pieces, np, 0, &cat));
    OLG_TRY(olg__emit_unsqueeze(cx, cat, (const int64_t[]){0}, 1, &per_dir[d]));
  }
  return olg__emit_concat(cx, per_dir, (size_t)r->dirs, 0, out);
}

/* Rows [l*dirs, (l+1)*dirs) of a [layers*dirs, B, H] state. */
static olg_status layer_state(olg_lower *cx, const rnn *r, olg_value s, int64_t l, olg_value *out) {
  if (r->layers == 1) return *out = s, OLG_OK;
  int64_t st = l * r->dirs, en = (l + 1) * r->dirs, ax = 0;
  return olg__emit_slice(cx, s, &st, &en, &ax, NULL, 1, out);
}

static olg_status lower_rnn(olg_lower *cx, cell_kind kind) {
  rnn r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.gates = kind == CELL_LSTM ? 4 : kind == CELL_GRU ? 3 : 1;
  r.perm = kind == CELL_LSTM ? perm_lstm : kind == CELL_GRU ? perm_gru : perm_rnn;
  const char *op = op_name(kind);
  /* the packed-sequence overloads: (data, batch_sizes, hx, params, ...) */
  if ((kind == CELL_LSTM && olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_VALUE &&
       olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_VALUES) ||
      (kind != CELL_LSTM && olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_VALUE))
    return olg_lower_unsupported(cx, "a packed sequence (the .data overload with batch_sizes)",
                                 -1);
  olg_value x;
  int train;
  double dropout;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (kind == CELL_LSTM) {
    OLG_TRY(olg_lower_arg_values(cx, 1, &r.hx, &r.n_hx));
    if (r.n_hx != 0 && r.n_hx != 2)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "lstm: hx must be [h0, c0]");
  } else if (!olg_lower_arg_is_none(cx, 1)) {
    OLG_TRY(olg_lower_arg_values(cx, 1, &r.hx, &r.n_hx));
  }
  OLG_TRY(olg_lower_arg_values(cx, 2, &r.params, &r.n_params));
  OLG_TRY(olg__arg_bool_or(cx, 3, 1, &r.has_biases));
  OLG_TRY(olg__arg_int_or(cx, 4, 1, &r.layers));
  OLG_TRY(olg__arg_float_or(cx, 5, 0.0, &dropout));
  OLG_TRY(olg__arg_bool_or(cx, 6, 0, &train));
  OLG_TRY(olg__arg_bool_or(cx, 7, 0, &r.bidirectional));
  OLG_TRY(olg__arg_bool_or(cx, 8, 0, &r.batch_first));
  if (train && dropout > 0)
    return olg_lower_unsupported(cx, "a recurrent layer in training mode with dropout", -1);
  r.dirs = r.bidirectional ? 2 : 1;
  int64_t per = 2 + 2 * r.has_biases;
  /* layers beyond the weight count is wrong anyway: checked first, the products cannot overflow */
  bool fits = r.layers >= 1 && (uint64_t)r.layers <= r.n_params;
  if (!fits || r.n_params != (size_t)(r.layers * r.dirs * per)) {
    if (kind == CELL_LSTM && fits && r.n_params == (size_t)(r.layers * r.dirs * (per + 1)))
      return olg_lower_unsupported(cx, "an LSTM with projections (proj_size > 0)", -1);
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: %zu weights for %lld layers x %lld directions "
                     "(%lld each)", op, r.n_params, (long long)r.layers, (long long)r.dirs,
                     (long long)per);
  }
  if (olg__rank(cx, x) != 3)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s expects a 3-D input (unbatched input is not "
                     "supported)", op);
  olg_dtype dt = olg__dtype(cx, x);
  if (dt != OLG_FLOAT && dt != OLG_DOUBLE && dt != OLG_FLOAT16)
    return olg__errf(cx, OLG_ERR_TYPE, "%s of a %s input", op, olg_dtype_name(dt));
  r.hidden = olg__dim(cx, r.params[1], 1); /* w_hh [G*H, H] */
  if (r.hidden <= 0)
    return olg__errf(cx, OLG_ERR_UNSUPPORTED, "%s: the hidden size (w_hh's dim 1) is not known",
                     op);
  if (r.batch_first)
    OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){1, 0, 2}, 3, &x));

  /* a layer's final states, concatenated after the last layer (any number of layers) */
  olg_value hy_buf[64], cy_buf[64];
  olg_value *hy = olg__lower_values(cx, hy_buf, 64, (size_t)r.layers),
            *cy = olg__lower_values(cx, cy_buf, 64, (size_t)r.layers);
  if (!hy || !cy) return OLG_ERR_NOMEM;
  for (int64_t l = 0; l < r.layers; l++) {
    olg_value w_src[2], r_src[2], b_src[4], W, R, B = OLG_NO_VALUE;
    for (int64_t d = 0; d < r.dirs; d++) {
      const olg_value *p = &r.params[(l * r.dirs + d) * per];
      w_src[d] = p[0];
      r_src[d] = p[1];
      if (r.has_biases) {
        b_src[2 * d] = p[2];
        b_src[2 * d + 1] = p[3];
      }
    }
    OLG_TRY(pack(cx, &r, w_src, 1, &W));
    OLG_TRY(pack(cx, &r, r_src, 1, &R));
    if (r.has_biases) OLG_TRY(pack(cx, &r, b_src, 2, &B));
    olg_value h0 = OLG_NO_VALUE, c0 = OLG_NO_VALUE;
    if (r.n_hx >= 1 && r.hx[0] != OLG_NO_VALUE) OLG_TRY(layer_state(cx, &r, r.hx[0], l, &h0));
    if (r.n_hx >= 2 && r.hx[1] != OLG_NO_VALUE) OLG_TRY(layer_state(cx, &r, r.hx[1], l, &c0));
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    olg_value in[7] = {x, W, R, B, OLG_NO_VALUE, h0, c0};
    size_t n_in = kind == CELL_LSTM ? 7 : 6;
    while (n_in > 3 && in[n_in - 1] == OLG_NO_VALUE) n_in--; /* trailing optionals left out */
    for (size_t i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "hidden_size", r.hidden));
    if (r.bidirectional) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "direction", "bidirectional"));
    if (kind == CELL_GRU) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "linear_before_reset", 1));
    if (kind == CELL_RNN_TANH || kind == CELL_RNN_RELU) {
      const char *act = kind == CELL_RNN_TANH ? "Tanh" : "Relu";
      const char *acts[2] = {act, act};
      OLG_TRY(olg_lower_emit_attr_strings(cx, nd, "activations", acts, (size_t)r.dirs));
    }
    olg_value outs[3];
    OLG_TRY(olg_lower_emit_end(cx, nd, kind == CELL_LSTM ? 3 : 2, outs));
    hy[l] = outs[1];
    if (kind == CELL_LSTM) cy[l] = outs[2];
    /* Y [T, dirs, B, H] -> [T, B, dirs*H] */
    olg_value y = outs[0];
    if (r.dirs == 1) {
      OLG_TRY(olg__emit_squeeze(cx, y, (const int64_t[]){1}, 1, &x));
    } else {
      OLG_TRY(olg__emit_transpose(cx, y, (const int64_t[]){0, 2, 1, 3}, 4, &y));
      OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, 2 * r.hidden}, 3, &x));
    }
  }
  if (r.batch_first)
    OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){1, 0, 2}, 3, &x));
  OLG_TRY(olg_lower_bind_output(cx, 0, x));
  olg_value h, c;
  if (olg_lower_output_count(cx) < 2) return OLG_OK;
  OLG_TRY(olg__emit_concat(cx, hy, (size_t)r.layers, 0, &h));
  OLG_TRY(olg_lower_bind_output(cx, 1, h));
  if (kind == CELL_LSTM && olg_lower_output_count(cx) > 2) {
    OLG_TRY(olg__emit_concat(cx, cy, (size_t)r.layers, 0, &c));
    OLG_TRY(olg_lower_bind_output(cx, 2, c));
  }
  return OLG_OK;
}

olg_status olg__sym_lstm(olg_lower *cx, olg_node_id src, void *ud) { UNUSED_SRC; return lower_rnn(cx, CELL_LSTM); }
olg_status olg__sym_gru(olg_lower *cx, olg_node_id src, void *ud) { UNUSED_SRC; return lower_rnn(cx, CELL_GRU); }
olg_status olg__sym_rnn_tanh(olg_lower *cx, olg_node_id src, void *ud) { UNUSED_SRC; return lower_rnn(cx, CELL_RNN_TANH); }
olg_status olg__sym_rnn_relu(olg_lower *cx, olg_node_id src, void *ud) { UNUSED_SRC; return lower_rnn(cx, CELL_RNN_RELU); }

/* ONNX RNN / GRU / LSTM with layout 1 (batch first, 14) below 14: the op as it was before, on
 * time-first tensors, between Transposes (X, initial_h, initial_c in; Y, Y_h, Y_c out); layout
 * 0 as it is. */
olg_status olg__sym_onnx_rnn_layout(olg_lower *cx, olg_node_id src, void *ud) {
  if (olg__src_attr_int(cx, "layout", 0) == 0) return olg__sym_onnx_passthrough(cx, src, ud);
  const olg_node *nd = olg__src_node(cx);
  bool lstm = strcmp(nd->op, "LSTM") == 0;
  size_t n_in = nd->n_args, n_out = olg_lower_output_count(cx);
  if (n_in > 8 || n_out > 3) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "too many inputs or outputs");
  static const int64_t swap01[] = {1, 0, 2}, y_perm[] = {2, 0, 1, 3};
  olg_value in[8], outs[3];
  for (size_t i = 0; i < n_in; i++) {
    in[i] = OLG_NO_VALUE;
    if (olg_lower_arg_is_none(cx, i)) continue;
    OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
    if (i == 0 || i == 5 || (lstm && i == 6)) /* X [B, T, I]; initial_h/c [B, D, H] */
      OLG_TRY(olg__emit_transpose(cx, in[i], swap01, 3, &in[i]));
  }
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", nd->op, &n));
  for (size_t i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (strcmp(nd->attrs[i].name, "layout") != 0)
      OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &nd->attrs[i]));
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  for (size_t i = 0; i < n_out; i++) {
    if (!olg_lower_output_used(cx, i)) continue;
    if (i == 0) OLG_TRY(olg__emit_transpose(cx, outs[0], y_perm, 4, &outs[0])); /* [T, D, B, H] */
    else OLG_TRY(olg__emit_transpose(cx, outs[i], swap01, 3, &outs[i]));        /* [D, B, H] */
  }
  return olg__bind_outputs(cx, outs, n_out);
}
