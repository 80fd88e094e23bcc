/* onnxlegal — models and graphs: the IR and its building API.
 *
 * A model owns its graphs (the main graph and any subgraphs), their values, nodes and
 * initializers. Values and nodes are named by integer ids that are stable for the graph's life:
 * they survive reallocation and suit ctypes. Every string is copied into the model. */
#ifndef ONNXLEGAL_GRAPH_H
#define ONNXLEGAL_GRAPH_H
#include <stddef.h>
#include <stdint.h>
#include "alloc.h"
#include "dtype.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olg_model olg_model;
typedef struct olg_graph olg_graph;
typedef int32_t olg_value;   /* a value's id in its graph */
typedef int32_t olg_node_id; /* a node's id in its graph */

#ifdef __cplusplus /* an omitted optional input, or "none" */
#define OLG_NO_VALUE (static_cast<olg_value>(-1))
#else
#define OLG_NO_VALUE ((olg_value)-1)
#endif
#define OLG_RANK_UNKNOWN (-1)
#define OLG_DIM_UNKNOWN (-1) /* a dim that is neither a number nor a symbolic name */

/* How deep subgraphs may nest: the bodies of the main graph's nodes are at depth 1, their
 * nodes' bodies at depth 2, and so on. One limit for every stage -- the reader, olg_check
 * (OLG-CHECK-DEPTH), shape inference, olg_legalize, the writers and the text printer -- each
 * refusing deeper with OLG_ERR_LIMIT and the words "nested more than 50 graphs deep", so that
 * what one stage accepts the next can handle. It is what the protobuf reader's message nesting
 * (192 messages, 3 per level) allows with room left for the deepest body's types. */
#define OLG_MAX_SUBGRAPH_DEPTH 50

/* The IR version written when the caller sets none: the newest this library knows. */
#define OLG_IR_VERSION_LATEST 13

/* ------------------------------------------------------------------------------------------ */
/* Models */

typedef struct olg_model_options {
  size_t size;                     /* sizeof(olg_model_options) */
  const olg_allocator *allocator;  /* NULL: the C library's malloc; copied, must outlive the model */
  int64_t ir_version;              /* 0: the IR version released with the default-domain opset
                                      set by olg_model_set_opset (opset 17: IR 8), and
                                      OLG_IR_VERSION_LATEST while none is set */
} olg_model_options;
#define OLG_MODEL_OPTIONS_INIT {sizeof(olg_model_options), OLG_NULLPTR, 0}
OLG_API void olg_model_options_init(olg_model_options *opts);

/* A new, empty model (no opset imports). opts may be NULL. */
OLG_API olg_status olg_model_new(olg_model **out, const olg_model_options *opts);
/* Frees the model, its graphs, and releases owned tensor data. NULL is a no-op. */
OLG_API void olg_model_free(olg_model *m);
/* The main graph. */
OLG_API olg_graph *olg_model_graph(olg_model *m);
OLG_API const olg_graph *olg_model_graph_const(const olg_model *m);

OLG_API olg_status olg_model_set_ir_version(olg_model *m, int64_t ir_version);
OLG_API int64_t olg_model_ir_version(const olg_model *m);
/* Sets (or replaces) the opset imported for a domain; "" and "ai.onnx" are the default domain. */
OLG_API olg_status olg_model_set_opset(olg_model *m, const char *domain, int64_t version);
/* The opset imported for domain, or -1 when the model does not import it. */
OLG_API int64_t olg_model_opset(const olg_model *m, const char *domain);
OLG_API size_t olg_model_opset_count(const olg_model *m);
OLG_API olg_status olg_model_opset_at(const olg_model *m, size_t i, const char **domain,
                                      int64_t *version);

/* String fields of ModelProto. */
typedef enum olg_model_field {
  OLG_MODEL_PRODUCER_NAME = 1,
  OLG_MODEL_PRODUCER_VERSION = 2,
  OLG_MODEL_DOMAIN = 3,
  OLG_MODEL_DOC_STRING = 4
} olg_model_field;
OLG_API olg_status olg_model_set_string(olg_model *m, olg_model_field f, const char *s);
/* "" when unset. */
OLG_API const char *olg_model_string(const olg_model *m, olg_model_field f);
OLG_API olg_status olg_model_set_model_version(olg_model *m, int64_t v);
OLG_API int64_t olg_model_model_version(const olg_model *m);
/* metadata_props: a key set twice keeps the last value. */
OLG_API olg_status olg_model_set_metadata(olg_model *m, const char *key, const char *value);
OLG_API size_t olg_model_metadata_count(const olg_model *m);
OLG_API olg_status olg_model_metadata_at(const olg_model *m, size_t i, const char **key,
                                         const char **value);

/* ------------------------------------------------------------------------------------------ */
/* Model-local functions (FunctionProto: what torch's export_modules_as_functions and onnxscript
 * write). A node whose domain and op name those of a function of the model calls it. A function's
 * body is a subgraph of the model whose inputs and outputs are the formal parameters, untyped
 * values (olg_graph_add_value, then olg_graph_add_formal_input / olg_graph_add_output); its
 * nodes' attributes may refer to the function's attributes (ref_attr_name). */

OLG_API size_t olg_model_function_count(const olg_model *m);
/* The i-th function's domain, name and body (each pointer may be NULL). */
OLG_API olg_status olg_model_function_at(const olg_model *m, size_t i, const char **domain,
                                         const char **name, olg_graph **body);
/* Adds a function whose body is `body`, an unattached subgraph of m (olg_model_new_subgraph)
 * with its formal inputs and outputs listed; `attributes` names the attributes its nodes may
 * refer to. The body is read at the model's opset imports, copied now. */
OLG_API olg_status olg_model_add_function(olg_model *m, const char *domain, const char *name,
                                          olg_graph *body, const char *const *attributes,
                                          size_t n_attributes);
/* Replaces every call of a model-local function in the model's graphs (subgraphs included) by
 * the function's body, its values renamed under the call node's name, attribute references
 * bound, nested calls expanded; the functions are then dropped. On failure (a recursive
 * function, a body that reads a name it does not define, a function importing a domain at
 * another version than the model) the model is unchanged and the message names the function. */
OLG_API olg_status olg_model_inline_functions(olg_model *m);
/* Lists an untyped value of a function body as its next formal input. */
OLG_API olg_status olg_graph_add_formal_input(olg_graph *body, olg_value v);

/* ------------------------------------------------------------------------------------------ */
/* Graphs */

/* A new subgraph owned by the model, for an If/Loop/Scan attribute. It sees the values of the
 * enclosing graphs by name. */
OLG_API olg_status olg_model_new_subgraph(olg_model *m, olg_graph **out);
OLG_API olg_model *olg_graph_model(olg_graph *g);
OLG_API olg_status olg_graph_set_name(olg_graph *g, const char *name);
OLG_API const char *olg_graph_name(const olg_graph *g);
OLG_API olg_status olg_graph_set_doc_string(olg_graph *g, const char *doc);
OLG_API const char *olg_graph_doc_string(const olg_graph *g);

/* Shapes cross the API as two parallel arrays, so that every binding can pass them:
 * dims[i] >= 0 is a fixed size; dims[i] == OLG_DIM_UNKNOWN is either unknown or, when
 * dim_params is not NULL and dim_params[i] is not NULL, the symbolic name dim_params[i].
 * rank == OLG_RANK_UNKNOWN means the rank itself is unknown (dims ignored). */

/* A graph input of tensor type. */
OLG_API olg_status olg_graph_add_input(olg_graph *g, const char *name, olg_dtype dtype,
                                       int32_t rank, const int64_t *dims,
                                       const char *const *dim_params, olg_value *out);
/* A named value with no type yet (typed later, or by inference). */
OLG_API olg_status olg_graph_add_value(olg_graph *g, const char *name, olg_value *out);
/* Appends an existing value to the graph outputs (a value may be an output once). */
OLG_API olg_status olg_graph_add_output(olg_graph *g, olg_value v);
/* Records the value's type in value_info (for intermediate values). */
OLG_API olg_status olg_graph_add_value_info(olg_graph *g, olg_value v);

/* How an initializer's data is held. */
typedef enum olg_data_mode {
  OLG_DATA_BORROW = 0, /* the caller keeps the bytes alive and unchanged until the model is freed */
  OLG_DATA_COPY = 1,   /* copied now, through the model's allocator */
  OLG_DATA_OWN = 2     /* the model takes the bytes; release(ud, data, nbytes) is called when done */
} olg_data_mode;
typedef void (*olg_release_fn)(void *ud, const void *data, size_t nbytes);

/* A constant tensor. data holds the elements in row-major order, in the host's byte order (the
 * file's little-endian bytes are converted when read and written), sub-byte types packed low
 * nibble first; nbytes must equal olg_dtype_nbytes(dtype, product of dims).
 * STRING tensors are made with olg_graph_add_string_initializer. When mode is OLG_DATA_OWN and
 * the call fails, release is called before it returns, so ownership always passes. */
OLG_API olg_status olg_graph_add_initializer(olg_graph *g, const char *name, olg_dtype dtype,
                                             int32_t rank, const int64_t *dims, const void *data,
                                             size_t nbytes, olg_data_mode mode,
                                             olg_release_fn release, void *ud, olg_value *out);
OLG_API olg_status olg_graph_add_string_initializer(olg_graph *g, const char *name, int32_t rank,
                                                    const int64_t *dims,
                                                    const char *const *strings,
                                                    const size_t *lengths, olg_value *out);

OLG_API size_t olg_graph_input_count(const olg_graph *g);
OLG_API olg_value olg_graph_input_at(const olg_graph *g, size_t i);
OLG_API size_t olg_graph_output_count(const olg_graph *g);
OLG_API olg_value olg_graph_output_at(const olg_graph *g, size_t i);
OLG_API size_t olg_graph_initializer_count(const olg_graph *g);
OLG_API olg_value olg_graph_initializer_at(const olg_graph *g, size_t i);
OLG_API size_t olg_graph_value_count(const olg_graph *g);
OLG_API size_t olg_graph_node_count(const olg_graph *g); /* node ids are 0 .. count-1 */
OLG_API olg_status olg_graph_find_value(const olg_graph *g, const char *name, olg_value *out);

/* ------------------------------------------------------------------------------------------ */
/* Values */

OLG_API const char *olg_value_name(const olg_graph *g, olg_value v);
/* OLG_UNDEFINED when the value has no tensor type (untyped, or a sequence/map/optional). */
OLG_API olg_dtype olg_value_dtype(const olg_graph *g, olg_value v);
/* OLG_RANK_UNKNOWN when unknown. */
OLG_API int32_t olg_value_rank(const olg_graph *g, olg_value v);
/* dims[i] as in olg_graph_add_input; *param (may be NULL) gets the symbolic name or NULL. */
OLG_API olg_status olg_value_dim(const olg_graph *g, olg_value v, int32_t i, int64_t *dim,
                                 const char **param);
/* Sets the tensor type. */
OLG_API olg_status olg_value_set_type(olg_graph *g, olg_value v, olg_dtype dtype, int32_t rank,
                                      const int64_t *dims, const char *const *dim_params);
/* The node that produces v and its output slot, or OLG_ERR_NOT_FOUND (inputs, initializers). */
OLG_API olg_status olg_value_producer(const olg_graph *g, olg_value v, olg_node_id *node,
                                      int32_t *slot);
/* An initializer's bytes (the tensor's memory, not a copy); OLG_ERR_NOT_FOUND for others. */
OLG_API olg_status olg_value_data(const olg_graph *g, olg_value v, const void **data,
                                  size_t *nbytes);

/* ------------------------------------------------------------------------------------------ */
/* Nodes: three steps, so that any binding can drive it.
 *
 *   olg_node_begin(g, "aten", "convolution", "layer1.0.conv1", &n);
 *   olg_node_arg_value(g, n, x); olg_node_arg_value(g, n, w); olg_node_arg_none(g, n);
 *   olg_node_arg_ints(g, n, stride, 2); ...
 *   olg_node_end(g, n, 1, NULL, &y);
 *
 * A node's inputs are its positional arguments. An ONNX-domain node has values only (and
 * OLG_NO_VALUE / none for an omitted optional input) plus named attributes: a list of values or
 * a literal on a node of a domain ONNX defines ("", "ai.onnx", "ai.onnx.ml") fails at once with
 * OLG_ERR_TYPE, and the node can still be finished with its values; a source node (a
 * framework's op, e.g. domain "aten") has positional arguments as the framework's op schema
 * lists them: values, value lists, or literals. */

OLG_API olg_status olg_node_begin(olg_graph *g, const char *domain, const char *op,
                                  const char *name, olg_node_id *out);
OLG_API olg_status olg_node_arg_value(olg_graph *g, olg_node_id n, olg_value v);
OLG_API olg_status olg_node_arg_values(olg_graph *g, olg_node_id n, const olg_value *v,
                                       size_t len);
OLG_API olg_status olg_node_arg_none(olg_graph *g, olg_node_id n);
OLG_API olg_status olg_node_arg_int(olg_graph *g, olg_node_id n, int64_t v);
OLG_API olg_status olg_node_arg_float(olg_graph *g, olg_node_id n, double v);
OLG_API olg_status olg_node_arg_bool(olg_graph *g, olg_node_id n, int v);
OLG_API olg_status olg_node_arg_string(olg_graph *g, olg_node_id n, const char *s);
OLG_API olg_status olg_node_arg_ints(olg_graph *g, olg_node_id n, const int64_t *v, size_t len);
OLG_API olg_status olg_node_arg_floats(olg_graph *g, olg_node_id n, const double *v, size_t len);

/* Named attributes, typed as ONNX's AttributeProto. */
OLG_API olg_status olg_node_attr_int(olg_graph *g, olg_node_id n, const char *name, int64_t v);
OLG_API olg_status olg_node_attr_float(olg_graph *g, olg_node_id n, const char *name, float v);
OLG_API olg_status olg_node_attr_string(olg_graph *g, olg_node_id n, const char *name,
                                        const char *s);
OLG_API olg_status olg_node_attr_bytes(olg_graph *g, olg_node_id n, const char *name,
                                       const void *s, size_t len);
OLG_API olg_status olg_node_attr_ints(olg_graph *g, olg_node_id n, const char *name,
                                      const int64_t *v, size_t len);
OLG_API olg_status olg_node_attr_floats(olg_graph *g, olg_node_id n, const char *name,
                                        const float *v, size_t len);
OLG_API olg_status olg_node_attr_strings(olg_graph *g, olg_node_id n, const char *name,
                                         const char *const *v, size_t len);
/* A tensor attribute (e.g. Constant's value); data as for olg_graph_add_initializer, copied. */
OLG_API olg_status olg_node_attr_tensor(olg_graph *g, olg_node_id n, const char *name,
                                        olg_dtype dtype, int32_t rank, const int64_t *dims,
                                        const void *data, size_t nbytes);
/* A subgraph attribute (If's then_branch, Loop's body); sub must belong to the same model and
 * may be attached once. */
OLG_API olg_status olg_node_attr_graph(olg_graph *g, olg_node_id n, const char *name,
                                       olg_graph *sub);
OLG_API olg_status olg_node_attr_graphs(olg_graph *g, olg_node_id n, const char *name,
                                        olg_graph *const *subs, size_t len);

/* Closes the node and creates its n_out outputs. names may be NULL (or hold NULL entries): such
 * outputs get unique generated names. An output whose name is "" is an omitted optional output.
 * outs (may be NULL) receives the new value ids. */
OLG_API olg_status olg_node_end(olg_graph *g, olg_node_id n, size_t n_out,
                                const char *const *names, olg_value *outs);
/* Closes the node with outputs that already exist as untyped, unproduced values (as a reader
 * does when a value is used before the node that makes it is seen). */
OLG_API olg_status olg_node_end_with(olg_graph *g, olg_node_id n, size_t n_out,
                                     const olg_value *outs);

/* Reading nodes back. */
OLG_API const char *olg_node_domain(const olg_graph *g, olg_node_id n);
OLG_API const char *olg_node_op(const olg_graph *g, olg_node_id n);
OLG_API const char *olg_node_name(const olg_graph *g, olg_node_id n);
OLG_API size_t olg_node_input_count(const olg_graph *g, olg_node_id n);
/* The value of positional argument i, or OLG_NO_VALUE when it is not a single value. */
OLG_API olg_value olg_node_input_at(const olg_graph *g, olg_node_id n, size_t i);
OLG_API size_t olg_node_output_count(const olg_graph *g, olg_node_id n);
OLG_API olg_value olg_node_output_at(const olg_graph *g, olg_node_id n, size_t i);
OLG_API size_t olg_node_attr_count(const olg_graph *g, olg_node_id n);
OLG_API const char *olg_node_attr_name(const olg_graph *g, olg_node_id n, size_t i);

/* A topological order of the graph's nodes (every node after the producers of its inputs).
 * order must hold olg_graph_node_count(g) ids. Fails with OLG_ERR_INVALID_MODEL, naming a node
 * of the cycle, when there is none. Linear in nodes plus edges. */
OLG_API olg_status olg_graph_topo_order(const olg_graph *g, olg_node_id *order);

#ifdef __cplusplus
}
#endif
#endif
