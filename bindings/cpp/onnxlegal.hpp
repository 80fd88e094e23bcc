// onnxlegal — a small header-only C++17 wrapper over the C API.
//
//   onnxlegal::Model m(17);
//   auto g = m.graph();
//   olg_value x = g.add_input("x", OLG_FLOAT, {onnxlegal::Dim("N"), 3});
//   olg_value y = g.node("Relu").input(x).output("y").end1();
//   g.add_output(y);
//   m.write("model.onnx");
//
// Handles are owned by std::unique_ptr with the library's free functions as deleters; every
// failing call throws onnxlegal::Error carrying the status and olg_last_error()'s message.
// Graphs are non-owning views into their model. Values and nodes are the C API's integer ids.
#ifndef ONNXLEGAL_HPP
#define ONNXLEGAL_HPP

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "onnxlegal/onnxlegal.h"

namespace onnxlegal {

// A failed call: what() is "<STATUS_NAME>: <message>".
class Error : public std::runtime_error {
 public:
  Error(olg_status status, const std::string &message)
      : std::runtime_error(std::string(olg_status_name(status)) + ": " + message),
        status_(status),
        message_(message) {}
  olg_status status() const noexcept { return status_; }
  const char *status_name() const noexcept { return olg_status_name(status_); }
  const std::string &message() const noexcept { return message_; }

 private:
  olg_status status_;
  std::string message_;
};

inline void check(olg_status s) {
  if (s != OLG_OK) throw Error(s, olg_last_error());
}

struct ModelDeleter {
  void operator()(olg_model *m) const noexcept { olg_model_free(m); }
};
struct DiagsDeleter {
  void operator()(olg_diags *d) const noexcept { olg_diags_free(d); }
};
using ModelPtr = std::unique_ptr<olg_model, ModelDeleter>;
using DiagsPtr = std::unique_ptr<olg_diags, DiagsDeleter>;

// One dim of a shape: a size, a symbolic name, or unknown.
class Dim {
 public:
  Dim(int64_t size) : value_(size) {}  // NOLINT: implicit, so that {1, 3} reads naturally
  Dim(int size) : value_(size) {}      // NOLINT
  Dim(const char *param) : value_(OLG_DIM_UNKNOWN), param_(param ? param : "") {}  // NOLINT
  Dim(std::string param) : value_(OLG_DIM_UNKNOWN), param_(std::move(param)) {}    // NOLINT
  static Dim unknown() { return Dim(static_cast<int64_t>(OLG_DIM_UNKNOWN)); }
  int64_t value() const noexcept { return value_; }
  const std::string &param() const noexcept { return param_; }

 private:
  int64_t value_;
  std::string param_;
};

namespace detail {
inline int append_to_string(void *ud, const void *data, size_t n) noexcept {
  try {
    static_cast<std::string *>(ud)->append(static_cast<const char *>(data), n);
    return 0;
  } catch (...) {
    return 1;  // the library reports OLG_ERR_CALLBACK
  }
}

// Parallel dims / dim_params arrays for the C API.
struct Shape {
  std::vector<int64_t> dims;
  std::vector<const char *> params;
  explicit Shape(const std::vector<Dim> &shape) {
    for (const Dim &d : shape) {
      dims.push_back(d.value());
      params.push_back(d.param().empty() ? nullptr : d.param().c_str());
    }
  }
};
}  // namespace detail

class Graph;

// Builds one node: inputs / arguments and attributes in any order, then end().
class NodeBuilder {
 public:
  NodeBuilder(olg_graph *g, olg_node_id n) : g_(g), n_(n) {}

  NodeBuilder &input(olg_value v) { return step(olg_node_arg_value(g_, n_, v)); }
  NodeBuilder &inputs(std::initializer_list<olg_value> vs) {
    for (olg_value v : vs) input(v);
    return *this;
  }
  NodeBuilder &none() { return step(olg_node_arg_none(g_, n_)); }
  // Positional literals, for source-framework nodes (e.g. domain "aten").
  NodeBuilder &arg_values(const std::vector<olg_value> &v) {
    return step(olg_node_arg_values(g_, n_, v.data(), v.size()));
  }
  NodeBuilder &arg(int64_t v) { return step(olg_node_arg_int(g_, n_, v)); }
  NodeBuilder &arg(int v) { return arg(static_cast<int64_t>(v)); }
  NodeBuilder &arg(double v) { return step(olg_node_arg_float(g_, n_, v)); }
  NodeBuilder &arg(bool v) { return step(olg_node_arg_bool(g_, n_, v ? 1 : 0)); }
  NodeBuilder &arg(const std::string &v) { return step(olg_node_arg_string(g_, n_, v.c_str())); }
  NodeBuilder &arg(const std::vector<int64_t> &v) {
    return step(olg_node_arg_ints(g_, n_, v.data(), v.size()));
  }
  NodeBuilder &arg(const std::vector<double> &v) {
    return step(olg_node_arg_floats(g_, n_, v.data(), v.size()));
  }

  NodeBuilder &attr(const char *name, int64_t v) { return step(olg_node_attr_int(g_, n_, name, v)); }
  NodeBuilder &attr(const char *name, int v) { return attr(name, static_cast<int64_t>(v)); }
  NodeBuilder &attr(const char *name, float v) { return step(olg_node_attr_float(g_, n_, name, v)); }
  NodeBuilder &attr(const char *name, const char *v) {
    return step(olg_node_attr_string(g_, n_, name, v));
  }
  NodeBuilder &attr(const char *name, const std::string &v) {
    return step(olg_node_attr_bytes(g_, n_, name, v.data(), v.size()));
  }
  NodeBuilder &attr(const char *name, const std::vector<int64_t> &v) {
    return step(olg_node_attr_ints(g_, n_, name, v.data(), v.size()));
  }
  NodeBuilder &attr(const char *name, const std::vector<float> &v) {
    return step(olg_node_attr_floats(g_, n_, name, v.data(), v.size()));
  }
  NodeBuilder &attr(const char *name, const std::vector<std::string> &v) {
    std::vector<const char *> p;
    for (const std::string &s : v) p.push_back(s.c_str());
    return step(olg_node_attr_strings(g_, n_, name, p.data(), p.size()));
  }
  NodeBuilder &attr(const char *name, Graph sub);
  // A tensor attribute (copied), e.g. Constant's value.
  NodeBuilder &attr_tensor(const char *name, olg_dtype dtype, const std::vector<int64_t> &dims,
                           const void *data, size_t nbytes) {
    return step(olg_node_attr_tensor(g_, n_, name, dtype, static_cast<int32_t>(dims.size()),
                                     dims.data(), data, nbytes));
  }

  // Names the next output ("" omits it); outputs not named get generated names.
  NodeBuilder &output(std::string name) {
    names_.push_back(std::move(name));
    return *this;
  }

  // Closes the node with max(n_out, named outputs) outputs; returns their ids
  // (OLG_NO_VALUE for omitted ones).
  std::vector<olg_value> end(size_t n_out = 1) {
    if (n_out < names_.size()) n_out = names_.size();
    std::vector<const char *> names(n_out, nullptr);
    for (size_t i = 0; i < names_.size(); i++) names[i] = names_[i].c_str();
    std::vector<olg_value> outs(n_out, OLG_NO_VALUE);
    check(olg_node_end(g_, n_, n_out, names.data(), outs.data()));
    return outs;
  }
  // Closes a node of one output and returns it.
  olg_value end1() { return end(1).at(0); }

  olg_node_id id() const noexcept { return n_; }

 private:
  NodeBuilder &step(olg_status s) {
    check(s);
    return *this;
  }
  olg_graph *g_;
  olg_node_id n_;
  std::vector<std::string> names_;
};

// A non-owning view of a graph of a model (valid while the model lives).
class Graph {
 public:
  explicit Graph(olg_graph *g) : g_(g) {}
  olg_graph *get() const noexcept { return g_; }

  std::string name() const { return olg_graph_name(g_); }
  void set_name(const std::string &n) { check(olg_graph_set_name(g_, n.c_str())); }

  olg_value add_input(const std::string &name, olg_dtype dtype, const std::vector<Dim> &shape) {
    detail::Shape s(shape);
    olg_value v;
    check(olg_graph_add_input(g_, name.c_str(), dtype, static_cast<int32_t>(shape.size()),
                              s.dims.data(), s.params.data(), &v));
    return v;
  }
  // An input whose rank is unknown.
  olg_value add_input_unranked(const std::string &name, olg_dtype dtype) {
    olg_value v;
    check(olg_graph_add_input(g_, name.c_str(), dtype, OLG_RANK_UNKNOWN, nullptr, nullptr, &v));
    return v;
  }
  // Borrows data by default: it must outlive the model and stay unchanged.
  olg_value add_initializer(const std::string &name, olg_dtype dtype,
                            const std::vector<int64_t> &dims, const void *data, size_t nbytes,
                            olg_data_mode mode = OLG_DATA_BORROW) {
    olg_value v;
    check(olg_graph_add_initializer(g_, name.c_str(), dtype, static_cast<int32_t>(dims.size()),
                                    dims.data(), data, nbytes, mode, nullptr, nullptr, &v));
    return v;
  }
  template <typename T>
  olg_value add_initializer(const std::string &name, olg_dtype dtype,
                            const std::vector<int64_t> &dims, const std::vector<T> &data,
                            olg_data_mode mode = OLG_DATA_BORROW) {
    return add_initializer(name, dtype, dims, data.data(), data.size() * sizeof(T), mode);
  }
  void add_output(olg_value v) { check(olg_graph_add_output(g_, v)); }
  void set_type(olg_value v, olg_dtype dtype, const std::vector<Dim> &shape) {
    detail::Shape s(shape);
    check(olg_value_set_type(g_, v, dtype, static_cast<int32_t>(shape.size()), s.dims.data(),
                             s.params.data()));
  }
  olg_value find(const std::string &name) const {
    olg_value v;
    check(olg_graph_find_value(g_, name.c_str(), &v));
    return v;
  }
  // A value of this graph standing for a name of an enclosing graph (subgraph captures).
  olg_value outer(const std::string &name) {
    olg_value v;
    if (olg_graph_find_value(g_, name.c_str(), &v) == OLG_OK) return v;
    check(olg_graph_add_value(g_, name.c_str(), &v));
    return v;
  }

  NodeBuilder node(const std::string &op, const std::string &domain = "",
                   const std::string &name = "") {
    olg_node_id n;
    check(olg_node_begin(g_, domain.c_str(), op.c_str(), name.c_str(), &n));
    return NodeBuilder(g_, n);
  }

  std::string value_name(olg_value v) const {
    const char *s = olg_value_name(g_, v);
    if (!s) throw Error(OLG_ERR_INVALID_ARG, olg_last_error());
    return s;
  }
  size_t input_count() const noexcept { return olg_graph_input_count(g_); }
  size_t output_count() const noexcept { return olg_graph_output_count(g_); }
  size_t node_count() const noexcept { return olg_graph_node_count(g_); }
  size_t initializer_count() const noexcept { return olg_graph_initializer_count(g_); }

 private:
  olg_graph *g_;
};

inline NodeBuilder &NodeBuilder::attr(const char *name, Graph sub) {
  return step(olg_node_attr_graph(g_, n_, name, sub.get()));
}

// An owned model.
class Model {
 public:
  explicit Model(int64_t opset = 17) {
    olg_model *m = nullptr;
    check(olg_model_new(&m, nullptr));
    m_.reset(m);
    if (opset > 0) set_opset("", opset);
  }
  explicit Model(ModelPtr m) : m_(std::move(m)) {
    if (!m_) throw Error(OLG_ERR_INVALID_ARG, "onnxlegal::Model: null model");
  }

  static Model read(const std::string &path) {
    olg_model *m = nullptr;
    check(olg_model_read_file(&m, path.c_str(), nullptr));
    return Model(ModelPtr(m));
  }
  // The bytes are borrowed: they must outlive the model.
  static Model read_memory(const void *data, size_t n) {
    olg_model *m = nullptr;
    check(olg_model_read_memory(&m, data, n, nullptr));
    return Model(ModelPtr(m));
  }

  olg_model *get() const noexcept { return m_.get(); }
  olg_model *release() noexcept { return m_.release(); }

  Graph graph() { return Graph(olg_model_graph(m_.get())); }
  Graph subgraph(const std::string &name = "") {
    olg_graph *g = nullptr;
    check(olg_model_new_subgraph(m_.get(), &g));
    Graph sub(g);
    if (!name.empty()) sub.set_name(name);
    return sub;
  }

  void set_opset(const std::string &domain, int64_t version) {
    check(olg_model_set_opset(m_.get(), domain.c_str(), version));
  }
  int64_t opset(const std::string &domain = "") const {
    return olg_model_opset(m_.get(), domain.c_str());
  }
  void set_ir_version(int64_t v) { check(olg_model_set_ir_version(m_.get(), v)); }
  int64_t ir_version() const noexcept { return olg_model_ir_version(m_.get()); }
  void set_string(olg_model_field f, const std::string &s) {
    check(olg_model_set_string(m_.get(), f, s.c_str()));
  }
  std::string string(olg_model_field f) const { return olg_model_string(m_.get(), f); }
  void set_metadata(const std::string &k, const std::string &v) {
    check(olg_model_set_metadata(m_.get(), k.c_str(), v.c_str()));
  }

  // Writes the model; with external_data, tensors of at least threshold bytes go to that file
  // (named relative to the model's directory).
  void write(const std::string &path, const std::string &external_data = "",
             uint64_t threshold = 1024) const {
    olg_write_options o = OLG_WRITE_OPTIONS_INIT;
    if (!external_data.empty()) {
      o.external_data = external_data.c_str();
      o.external_data_threshold = threshold;
    }
    check(olg_model_write_file(m_.get(), path.c_str(), &o));
  }
  std::string to_bytes() const {
    std::string out;
    check(olg_model_write_callback(m_.get(), detail::append_to_string, &out, nullptr));
    return out;
  }
  std::string to_text() const {
    std::string out;
    check(olg_model_print_text(m_.get(), detail::append_to_string, &out));
    return out;
  }
  std::string to_dot() const {
    std::string out;
    check(olg_model_print_dot(m_.get(), detail::append_to_string, &out));
    return out;
  }

 private:
  ModelPtr m_;
};

// An owned list of diagnostics.
class Diags {
 public:
  Diags() {
    olg_diags *d = nullptr;
    check(olg_diags_new(&d, nullptr));
    d_.reset(d);
  }
  olg_diags *get() const noexcept { return d_.get(); }
  size_t size() const noexcept { return olg_diags_count(d_.get()); }
  size_t error_count() const noexcept { return olg_diags_error_count(d_.get()); }
  void add(olg_severity sev, const std::string &code, const std::string &message,
           const std::string &node = "", const std::string &domain = "",
           const std::string &op = "", int64_t opset = -1) {
    check(olg_diags_add(d_.get(), sev, code.c_str(), node.c_str(), domain.c_str(), op.c_str(),
                        opset, message.c_str()));
  }
  olg_severity severity(size_t i) const noexcept {
    return static_cast<olg_severity>(olg_diag_severity(d_.get(), i));
  }
  std::string code(size_t i) const { return at(olg_diag_code(d_.get(), i)); }
  std::string node(size_t i) const { return at(olg_diag_node(d_.get(), i)); }
  std::string op(size_t i) const { return at(olg_diag_op(d_.get(), i)); }
  std::string message(size_t i) const { return at(olg_diag_message(d_.get(), i)); }
  void clear() noexcept { olg_diags_clear(d_.get()); }

 private:
  static std::string at(const char *s) {
    if (!s) throw Error(OLG_ERR_RANGE, "diagnostic index out of range");
    return s;
  }
  DiagsPtr d_;
};

}  // namespace onnxlegal

#endif
