/* onnxlegal — target profiles: what a runtime accepts beyond valid ONNX (internal).
 *
 * A profile is data: a list of rules, each about one op over a range of its since-versions (or
 * about any node, through a match function): the dtypes a type constraint or an input accepts,
 * the values an attribute may take, which inputs must be known at conversion time (initializers,
 * Constants, folded values), the ranks and the limits the runtime handles, or that the op has
 * no implementation at all. A rule has a stable name ("ort/kernel-type", "tensorrt/shape-gather")
 * that every diagnostic and report line quotes, and a fix: a rewrite that makes the node legal
 * for the runtime, or none (then a conversion refuses the node, naming the rule).
 *
 * The engine (lib/profile.c) runs the rules two ways:
 * - the check (olg__profile_check_graph; olg_profile_check, `onnxlegal check --profile`) walks
 *   any graph whose values carry their types (a legalized one, or one olg_infer_shapes
 *   annotated) and reports every violation: node, rule, and what would fix it;
 * - the rewrite (olg__profile_rewrite; olg_legalize with a profile) walks every lowered graph
 *   (subgraphs too) after its outputs are bound and before the cleanup, and applies each
 *   violated rule's fix; a rule without a fix, or a fix that declines, is an error naming the
 *   rule. Each fix that fired is a note OLG-PROFILE-FIXED when the report is on.
 *
 * The built-in profiles' rules live in profiles/ (their tables name their source documents and
 * versions); profiles/profiles.c lists them. The core knows them only through this interface and
 * never includes their headers. A caller-defined profile (olg_profile_new) is the same struct on
 * the heap, with rules of its own and, optionally, a built-in base whose rules also apply.
 *
 * A fix emits with the emit helpers (symbolics/emit.h) through site->cx and makes a value stand
 * for another with olg__replace_value(cx, old, new, cx->subst) (lib/passes/passes.h); the
 * cleanup then applies the substitution and removes the dead nodes. The engine keeps cx->subst
 * large enough for every value a fix may add (at most OLG_PROFILE_FIX_VALUES per fix). */
#ifndef OLG_PROFILE_H
#define OLG_PROFILE_H
#include "lower.h"

/* The most values one fix may add to the graph. */
#define OLG_PROFILE_FIX_VALUES 4096

/* What a rule checks on a node of its op (at one of its since-versions). */
typedef enum olg_prule_kind {
  OLG_PRULE_OP = 1,      /* the op at these versions is not accepted at all */
  OLG_PRULE_TYPES = 2,   /* the dtype of every input/output bound to constraint tc (or of slot)
                            must be in types; an unknown dtype is no violation */
  OLG_PRULE_ATTR = 3,    /* int/string attribute attr must be one of ivals/svals; absent, its
                            value is dflt_i / dflt_s (NULL dflt_s, has_dflt 0: absent is fine) */
  OLG_PRULE_KNOWN = 4,   /* input slot, when present, must be known at conversion time */
  OLG_PRULE_RANK = 5,    /* the rank of slot must lie in [lo, hi] (unknown rank: fine) */
  OLG_PRULE_LIMIT = 6,   /* every value of int(s) attribute attr, or of the known input slot
                            (attr NULL), must lie in [lo, hi]; unknown values: fine */
  OLG_PRULE_MATCH = 7    /* match(site) says whether the node violates the rule */
} olg_prule_kind;

/* A slot: input i is i >= 0, output k is OLG_PSLOT_OUT(k). */
#define OLG_PSLOT_OUT(k) (-1 - (k))
#define OLG_PSLOT_NONE INT32_MIN

struct olg_prule;
struct olg_profile;

/* Where a rule is applied: the node, what was found, and the message buffer a fix or a match
 * function may fill (what it did, why it refuses, what would fix it). */
typedef struct olg_prule_site {
  olg_lower *cx;             /* the lowering context during a rewrite; NULL during a check */
  const olg_graph *g;        /* the graph the node is in (cx->dst during a rewrite) */
  olg_node_id node;
  int opset;                 /* the default domain's opset of the model */
  int version;               /* the op's since-version at that opset (0 for custom domains) */
  const struct olg_prule *rule;
  const struct olg_profile *profile;
  int32_t slot;              /* the offending input/output, or OLG_PSLOT_NONE */
  olg_dtype dtype;           /* the offending dtype (TYPES), else OLG_UNDEFINED */
  int64_t value;             /* the offending value (ATTR int, LIMIT), else 0 */
  char msg[512];             /* filled by a fix or match function; may stay empty */
} olg_prule_site;

/* A fix: OLG_OK when the node was rewritten; OLG_ERR_UNSUPPORTED (after writing why into
 * site->msg) when this violation cannot be fixed exactly; any other status is a failure of the
 * call (memory). */
typedef olg_status (*olg_prule_fix_fn)(olg_prule_site *site);
/* A match: true when the node violates the rule (site->msg may say how). */
typedef bool (*olg_prule_match_fn)(olg_prule_site *site);

typedef struct olg_prule {
  const char *name;   /* stable, "<profile>/<rule>", quoted by every diagnostic */
  const char *op;     /* the ONNX-domain op, or NULL: any node (MATCH only) */
  int16_t since;      /* the op's since-versions the rule covers: since <= v <= until */
  int16_t until;      /* 0: no upper bound */
  uint8_t kind;       /* olg_prule_kind */
  int32_t slot;       /* TYPES (when tc is NULL), KNOWN, RANK, LIMIT */
  const char *tc;     /* TYPES: the type constraint's name ("T") */
  uint32_t types;     /* TYPES: bit d set when dtype d is accepted */
  const char *attr;   /* ATTR, LIMIT */
  const int64_t *ivals;       /* ATTR on an int attribute: the accepted values */
  const char *const *svals;   /* ATTR on a string attribute: the accepted values */
  uint32_t n_vals;
  bool has_dflt;              /* ATTR: the attribute's default when absent */
  int64_t dflt_i;
  const char *dflt_s;
  int64_t lo, hi;             /* RANK, LIMIT */
  olg_prule_match_fn match;   /* MATCH */
  olg_prule_fix_fn fix;       /* NULL: no rewrite (a conversion refuses the node) */
  const char *what;           /* what the runtime accepts, for the message ("kernels for
                                 float, int32" is made by the engine; this adds context) */
  const char *hint;           /* what would fix a violation ("cast to int32 and back") */
  /* caller-defined rules (olg_profile_add_*): the public callback and its data */
  olg_profile_rewrite_fn user_fix;
  void *ud;
} olg_prule;

/* A table of rules. sorted: rows ordered by op (strcmp), none with op NULL; the engine then
 * finds a node's rules by binary search, so a big table costs log(rows) per node. */
typedef struct olg_prule_table {
  const olg_prule *rules;
  size_t n;
  bool sorted;
  const char *source; /* the document the table is taken from, with its version */
} olg_prule_table;

typedef struct olg_profile {
  const char *name;               /* as olg_legalize_options.profile spells it */
  const char *title;              /* e.g. "ONNX Runtime 1.30, CPU execution provider" */
  const olg_prule_table *tables;  /* the rules */
  size_t n_tables;
  const struct olg_profile *base; /* whose rules also apply (caller-defined profiles), or NULL */
  /* caller-defined profiles (lib/profile_api.c): rules on the heap */
  olg_prule *own;
  size_t n_own, cap_own;
  olg_prule_table own_table;
  uint32_t magic;
  uint8_t caller_defined; /* made by olg_profile_new (its strings and rules are freed) */
} olg_profile;

/* olg_profile.magic of every profile, built-in or caller-defined (a check on public handles) */
#define OLG_PROFILE_MAGIC 0x6f6c6750u


/* olg_profile_new (defined in profiles/profiles.c, beside the built-in list, which tells
 * builtin_name: name is a built-in profile's, refused as "none" is). */
olg_status olg__profile_new(olg_profile **out, const char *name, const olg_profile *base,
                            bool builtin_name);

/* lib/profile.c: the rewrite pass over cx->dst (cx->prof); called by the cleanup with
 * cx->subst/cx->subst_cap set up (the engine grows them). Reports every refusal, then fails
 * with OLG_ERR_UNSUPPORTED when there was one. */
olg_status olg__profile_rewrite(olg_lower *cx);

/* What a fix (profiles/) reads and changes of the lowering it runs in, so that profiles never
 * reach into olg_lower: the graph being rewritten; whether constants are folded
 * (olg_legalize_options.no_constant_folding off); the replacement of value old by `by` for
 * every reader, recorded in the rewrite's substitution. */
olg_graph *olg__prof_graph(olg_lower *cx);
bool olg__prof_folding(const olg_lower *cx);
olg_status olg__prof_replace(olg_lower *cx, olg_value old, olg_value by);

/* lib/profile.c: the check of g (and its subgraphs) against p; every violation an error
 * OLG-PROFILE-VIOLATION in d; *n_violations counts them. */
olg_status olg__profile_check_graph(const olg_profile *p, const olg_graph *g, int opset,
                                    olg_diags *d, size_t *n_violations);

/* The since-version of ONNX op `op` at `opset`, or 0. */
int olg__profile_op_version(const char *op, int opset);

#endif
