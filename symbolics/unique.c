/* onnxlegal — Unique-11 below 11 (from 9: Compress, Where), by pairwise comparison.
 *
 * ONNX Runtime's kernel keys a std::map by the value (with axis: by the slice along axis,
 * compared lexicographically): two values are one key when neither is less than the other, the
 * key's first occurrence gives Y's value and `indices`; sorted=1 lists the keys ascending,
 * sorted=0 in the order of first occurrence. With every pair of the n items (values, or slices
 * flattened to m values) compared at once ([n, n, m]), each part is a count, exactly:
 * - same[i][j]: no position where one is less than the other; first[i]: no j < i is the same;
 * - counts: the items the same as the first occurrence;
 * - sorted: an item's place is the number of first occurrences less than it (lexicographically:
 *   less at the first position where they differ), which is also inverse_indices; Y's items are
 *   the first occurrences in that order;
 * - unsorted: the first occurrences in index order; an item's place is the number of first
 *   occurrences up to its own first occurrence, minus one.
 * Counts and places are summed in float (exact below 2^24 items; n * n memory bounds n long
 * before). NaN, which the map orders inconsistently, is not matched. Strings are refused (no
 * comparison ops on them), uint64 too (Less below 11 is not defined on it in every runtime). */
#include <math.h>
#include <stdint.h>

#include "emit.h"
#include "symbolics.h"

static olg_status op2(olg_lower *c, const char *op, olg_value a, olg_value b, olg_value *o) {
  return olg__emit2(c, op, a, b, o);
}
static olg_status where(olg_lower *c, olg_value m, olg_value a, olg_value b, olg_value *o) {
  const olg_value w[3] = {m, a, b};
  return olg__emit(c, "Where", w, 3, o);
}
/* any / sum over axis of a bool tensor (as float; ReduceMax/ReduceSum-1 on float) */
static olg_status red(olg_lower *c, olg_reduce_kind k, olg_value x, int64_t axis, int keep,
                      olg_value *o) {
  olg_value f;
  OLG_TRY(olg__emit_cast(c, x, OLG_FLOAT, &f));
  return olg__emit_reduce(c, k, f, &axis, 1, keep, o);
}
static olg_status unsq(olg_lower *c, olg_value x, int64_t axis, olg_value *o) {
  return olg__emit_unsqueeze(c, x, &axis, 1, o);
}

olg_status olg__sym_onnx_unique(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, x2, gsrc;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (t == OLG_STRING || t == OLG_UINT64 || t == OLG_UNDEFINED)
    return olg__unsupportedf(cx, 11, "Unique of %s (compared with Less, which does not take it "
                             "below 11)", olg_dtype_name(t));
  int64_t sorted = olg__src_attr_int(cx, "sorted", 1), gaxis = 0;
  if (!olg_lower_src_attr_has(cx, "axis")) {
    static const int64_t d2[2] = {-1, 1}, d1 = -1;
    OLG_TRY(olg__emit_reshape_static(cx, x, d2, 2, &x2));
    OLG_TRY(olg__emit_reshape_static(cx, x, &d1, 1, &gsrc));
  } else {
    int32_t rank;
    OLG_TRY(olg__input_rank(cx, x, &rank));
    int64_t a = olg__norm_axis(olg__src_attr_int(cx, "axis", 0), rank);
    if (a < 0) return olg__errf(cx, OLG_ERR_RANGE, "Unique: axis out of range for rank %d", rank);
    /* the slices along axis as rows: axis first, the rest flattened */
    int64_t perm[OLG_MAX_RANK];
    perm[0] = a;
    for (int32_t d = 0, k = 1; d < rank; d++)
      if (d != a) perm[k++] = d;
    olg_value xt = x, n1, m1, shp;
    if (a != 0) OLG_TRY(olg__emit_transpose(cx, x, perm, (size_t)rank, &xt));
    OLG_TRY(olg__dim_tensor(cx, x, a, &n1));
    static const int64_t minus1 = -1;
    OLG_TRY(olg__const_i64s(cx, &minus1, 1, &m1));
    const olg_value pieces[2] = {n1, m1};
    OLG_TRY(olg__concat_ints(cx, pieces, 2, &shp));
    OLG_TRY(olg__emit_reshape(cx, xt, shp, &x2));
    gsrc = x;
    gaxis = a;
  }
  /* comparable values: Less-9 takes the numeric types; bool and the narrow integers as int64,
   * float16/bfloat16 as float (both exact, order kept) */
  olg_dtype ct = t;
  if (t == OLG_BOOL || t == OLG_INT8 || t == OLG_INT16 || t == OLG_UINT8 || t == OLG_UINT16 ||
      t == OLG_UINT32)
    ct = OLG_INT64;
  else if (t == OLG_FLOAT16 || t == OLG_BFLOAT16)
    ct = OLG_FLOAT;
  OLG_TRY(olg__emit_cast(cx, x2, ct, &x2));

  olg_value a3, b3, lt3, gt3, ne3, ne, same, ar, arf, car, big, zero;
  OLG_TRY(unsq(cx, x2, 1, &a3)); /* [n, 1, m]: item i */
  OLG_TRY(unsq(cx, x2, 0, &b3)); /* [1, n, m]: item j */
  OLG_TRY(op2(cx, "Less", a3, b3, &lt3));
  OLG_TRY(op2(cx, "Greater", a3, b3, &gt3));
  OLG_TRY(op2(cx, "Or", lt3, gt3, &ne3));
  OLG_TRY(red(cx, OLG_REDUCE_MAX, ne3, 2, 0, &ne));
  OLG_TRY(olg__emit_cast(cx, ne, OLG_BOOL, &ne));
  OLG_TRY(olg__emit1(cx, "Not", ne, &same)); /* [n, n] */
  OLG_TRY(olg__emit_arange_dim(cx, x2, 0, &ar));
  OLG_TRY(olg__emit_cast(cx, ar, OLG_FLOAT, &arf));
  OLG_TRY(olg__emit_arange_dim(cx, x2, 1, &car));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, INFINITY, &big));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0, &zero));

  /* lexicographic less: less at the first position where they differ */
  olg_value d, di, atd, lt, far;
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 16777216.0, &far)); /* past every position */
  OLG_TRY(olg__emit_cast(cx, car, OLG_FLOAT, &d));
  OLG_TRY(where(cx, ne3, d, far, &d));
  static const int64_t ax2 = 2;
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MIN, d, &ax2, 1, 1, &d)); /* [n, n, 1] */
  OLG_TRY(olg__emit_cast(cx, d, OLG_INT64, &di));
  OLG_TRY(op2(cx, "Equal", car, di, &atd));
  OLG_TRY(op2(cx, "And", lt3, atd, &lt));
  OLG_TRY(red(cx, OLG_REDUCE_MAX, lt, 2, 0, &lt)); /* [n, n] float: item i < item j */

  /* first occurrences */
  olg_value row, col, before, dup, first, firstf, cnt;
  OLG_TRY(unsq(cx, ar, 0, &row));
  OLG_TRY(unsq(cx, ar, 1, &col));
  OLG_TRY(op2(cx, "Less", row, col, &before)); /* j < i */
  OLG_TRY(op2(cx, "And", same, before, &dup));
  OLG_TRY(red(cx, OLG_REDUCE_MAX, dup, 1, 0, &dup));
  OLG_TRY(olg__emit_cast(cx, dup, OLG_BOOL, &dup));
  OLG_TRY(olg__emit1(cx, "Not", dup, &first));
  OLG_TRY(olg__emit_cast(cx, first, OLG_FLOAT, &firstf));
  OLG_TRY(red(cx, OLG_REDUCE_SUM, same, 1, 0, &cnt)); /* [n]: items the same as item i */

  olg_value idx, inv, frow;
  OLG_TRY(unsq(cx, firstf, 0, &frow)); /* [1, n] */
  if (sorted) {
    /* place[i] = first occurrences less than item i */
    olg_value ltt, place, placei, m, pr, valid, sf;
    static const int64_t tr[2] = {1, 0};
    OLG_TRY(olg__emit_transpose(cx, lt, tr, 2, &ltt)); /* [i, j]: item j < item i */
    OLG_TRY(op2(cx, "Mul", ltt, frow, &place));
    static const int64_t ax1 = 1;
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, place, &ax1, 1, 0, &place));
    OLG_TRY(olg__emit_cast(cx, place, OLG_INT64, &inv));
    /* the first occurrence at each place r: m[r][j] = first[j] and place[j] == r */
    OLG_TRY(unsq(cx, inv, 0, &placei));
    OLG_TRY(op2(cx, "Equal", placei, col, &m));
    OLG_TRY(olg__emit_cast(cx, frow, OLG_BOOL, &pr));
    OLG_TRY(op2(cx, "And", m, pr, &m));
    OLG_TRY(red(cx, OLG_REDUCE_MAX, m, 1, 0, &valid));
    OLG_TRY(olg__emit_cast(cx, valid, OLG_BOOL, &valid));
    OLG_TRY(unsq(cx, arf, 0, &sf));
    OLG_TRY(where(cx, m, sf, zero, &sf));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, sf, &ax1, 1, 0, &sf));
    const olg_value cin[2] = {sf, valid};
    OLG_TRY(olg__emit(cx, "Compress", cin, 2, &idx));
    OLG_TRY(olg__emit_cast(cx, idx, OLG_INT64, &idx));
  } else {
    /* place[i] = first occurrences at or before item i's first occurrence, minus one */
    olg_value fi, fcol, upto, place, one;
    OLG_TRY(unsq(cx, arf, 0, &fi));
    OLG_TRY(where(cx, same, fi, big, &fi));
    static const int64_t ax1 = 1;
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MIN, fi, &ax1, 1, 1, &fcol)); /* [n, 1] */
    OLG_TRY(unsq(cx, arf, 0, &fi));
    OLG_TRY(op2(cx, "Greater", fi, fcol, &upto));
    OLG_TRY(olg__emit1(cx, "Not", upto, &upto));
    OLG_TRY(where(cx, upto, frow, zero, &place));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, place, &ax1, 1, 0, &place));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 1, &one));
    OLG_TRY(op2(cx, "Sub", place, one, &place));
    OLG_TRY(olg__emit_cast(cx, place, OLG_INT64, &inv));
    const olg_value cin[2] = {ar, first};
    OLG_TRY(olg__emit(cx, "Compress", cin, 2, &idx));
  }
  olg_value outs[4];
  OLG_TRY(olg__emit_gather(cx, gsrc, idx, gaxis, &outs[0]));
  outs[1] = idx;
  outs[2] = inv;
  OLG_TRY(olg__emit_gather(cx, cnt, idx, 0, &outs[3]));
  OLG_TRY(olg__emit_cast(cx, outs[3], OLG_INT64, &outs[3]));
  return olg__bind_outputs(cx, outs, 4);
}
