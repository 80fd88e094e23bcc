/* onnxlegal — what the tensorrt and openvino profiles' rule files share (internal): reading a
 * node and what is known of its values from the graph alone (a match runs during a check too,
 * without a lowering context), copying a node with changed attributes, and the exact
 * decompositions both runtimes need (profiles/tensorrt_decomp.c). */
#ifndef OLG_PROFILES_TENSORRT_H
#define OLG_PROFILES_TENSORRT_H
#include <stdbool.h>

#include "profiles.h"
#include "../lib/passes/passes.h"
#include "../symbolics/emit.h"

/* ---- reading the graph (profiles/tensorrt.c) ---- */
/* Input k of node i, OLG_NO_VALUE when absent. */
olg_value olg__prof_input(const olg_graph *g, olg_node_id i, uint32_t k);
/* The contents of v when known: a known value, an initializer, a Constant's value. */
const olg_tensor *olg__prof_known(const olg_graph *g, olg_value v);
/* Known integer contents (int32/int64, at most cap elements). */
bool olg__prof_known_ints(const olg_graph *g, olg_value v, int64_t *out, size_t cap, size_t *n);
/* The rank (OLG_RANK_UNKNOWN when unknown) and, when every dim is known, the dims. */
int32_t olg__prof_rank(const olg_graph *g, olg_value v);
bool olg__prof_static_shape(const olg_graph *g, olg_value v, int64_t *dims, int32_t *rank);
int64_t olg__prof_attr_i(const olg_node *nd, const char *name, int64_t dflt);
float olg__prof_attr_f(const olg_node *nd, const char *name, float dflt);
/* A string attribute compared with s (absent: dflt). */
bool olg__prof_attr_is(const olg_node *nd, const char *name, const char *dflt, const char *s);
/* A string attribute into buf (absent: dflt). */
void olg__prof_attr_s(const olg_node *nd, const char *name, const char *dflt, char *buf,
                      size_t cap);

/* ---- rewriting (fixes; st->cx is set) ---- */
/* Writes why into st->msg and returns OLG_ERR_UNSUPPORTED: the engine refuses the node with
 * the rule named. */
olg_status olg__prof_decline(olg_prule_site *st, const char *fmt, ...) OLG_PRINTF(2, 3);
/* Starts a copy of the site's node: same op and inputs, its attributes but those named in skip
 * (NULL-terminated, may be NULL). The caller adds attributes and calls olg__prof_clone_end. */
olg_status olg__prof_clone_begin(olg_prule_site *st, const char *const *skip, olg_node_id *nid);
/* Ends the copy: its outputs stand for the node's (which the engine then removes). */
olg_status olg__prof_clone_end(olg_prule_site *st, olg_node_id nid);
/* Makes vals[k] stand for output k of the site's node (n outputs). */
olg_status olg__prof_replace_outputs(olg_prule_site *st, const olg_value *vals, size_t n);
/* True when every output of the node is a small known value the cleanup folds to a Constant. */
bool olg__prof_folds(olg_prule_site *st);

/* ---- exact decompositions shared by the profiles (profiles/tensorrt_decomp.c) ---- */
/* Bernoulli as the spec says: 1 with probability p, Cast(RandomUniformLike(x) < x). */
olg_status olg__prof_bernoulli(olg_prule_site *st);
/* MaxUnpool as a ScatterElements of X into zeros over the flattened output (static shapes). */
olg_status olg__prof_maxunpool(olg_prule_site *st);
/* LpPool as (AveragePool(|x|^p, count_include_pad) * prod(kernel)) ^ (1/p). */
olg_status olg__prof_lppool(olg_prule_site *st);
/* Det of static 1x1, 2x2 or 3x3 matrices as the cofactor formula. */
olg_status olg__prof_det(olg_prule_site *st);
/* Optional / OptionalHasElement / OptionalGetElement on an Optional built in the graph (or on
 * a plain tensor): read directly. *done false: not that case. */
olg_status olg__prof_optional(olg_prule_site *st, bool *done);

/* ---- tensorrt's Resize rules (profiles/tensorrt_resize.c) ---- */
#define OLG_TRT_N_RESIZE_RULES 6
extern const olg_prule olg__trt_resize_rules[OLG_TRT_N_RESIZE_RULES]; /* sorted by op */

#endif
