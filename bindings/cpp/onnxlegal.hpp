// onnxlegal — a header-only C++17 wrapper over the C API (installed as <onnxlegal/onnxlegal.hpp>;
// CMake: find_package(onnxlegal) and link onnxlegal::onnxlegal).
//
//   onnxlegal::Model m(17);
//   auto g = m.graph();
//   g.set_name("relu");
//   olg_value x = g.add_input("x", OLG_FLOAT, {onnxlegal::Dim("N"), 3});
//   olg_value y = g.node("Relu").input(x).output("y").end1();
//   g.set_type(y, OLG_FLOAT, {onnxlegal::Dim("N"), 3});
//   g.add_output(y);
//   m.write("model.onnx");  // `onnxlegal check model.onnx` finds it valid
//
//   onnxlegal::Registry r = onnxlegal::Registry::builtin();
//   r.add("mydomain", "gelu2", 7, [](onnxlegal::Lower &cx) {
//     cx.bind_output(0, cx.emit("Relu").input(cx.arg_value(0)).end1());
//   });
//   r.freeze();
//   onnxlegal::Model out = onnxlegal::legalize(src, r, {/*opset*/ 13});  // throws DiagnosticError
//   onnxlegal::Diags d = out.check(true);                                 // full check
//
// Every handle is owned (RAII) and freed by its destructor, also when an exception unwinds; every
// failing call throws onnxlegal::Error carrying the status and olg_last_error()'s message, and
// calls that produce diagnostics (legalize, check_or_throw, infer_shapes) throw
// onnxlegal::DiagnosticError carrying all of them. A legalized model borrows its source's tensor
// bytes (legalize.h): the result holds a shared reference to the source's handle, so destroying
// the source Model first is safe. Graphs are non-owning views into their model. Values and nodes
// are the C API's integer ids.
#ifndef ONNXLEGAL_HPP
#define ONNXLEGAL_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onnxlegal/onnxlegal.h"

namespace onnxlegal {

// A header-only library has nowhere to put an out-of-line key function: the exception classes'
// vtables are emitted where they are used (clang's -Wweak-vtables says so; nothing to fix).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wweak-vtables"
#endif

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
  // A temporary vector (add_initializer("w", OLG_FLOAT, {3}, {1.f, 2.f, 3.f})) dies with the
  // statement: its bytes are copied, whatever the mode (borrowing them would dangle).
  template <typename T>
  olg_value add_initializer(const std::string &name, olg_dtype dtype,
                            const std::vector<int64_t> &dims, std::vector<T> &&data,
                            olg_data_mode mode = OLG_DATA_COPY) {
    (void)mode;
    return add_initializer(name, dtype, dims, data.data(), data.size() * sizeof(T), OLG_DATA_COPY);
  }
  void add_output(olg_value v) { check(olg_graph_add_output(g_, v)); }
  // Lists an untyped value of a function body as its next formal input.
  void add_formal_input(olg_value v) { check(olg_graph_add_formal_input(g_, v)); }
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

  // A named value without a type (a function body's formal input, ...).
  olg_value add_value(const std::string &name) {
    olg_value v;
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
  // What is known of a value's type (after infer_shapes, or as declared).
  olg_dtype dtype(olg_value v) const noexcept { return olg_value_dtype(g_, v); }
  int32_t rank(olg_value v) const noexcept { return olg_value_rank(g_, v); }
  std::vector<Dim> shape(olg_value v) const {
    std::vector<Dim> out;
    for (int32_t i = 0; i < rank(v); i++) {
      int64_t d = OLG_DIM_UNKNOWN;
      const char *p = nullptr;
      check(olg_value_dim(g_, v, i, &d, &p));
      out.push_back(p ? Dim(p) : Dim(d));
    }
    return out;
  }
  // An initializer's bytes (the tensor's memory, not a copy).
  std::pair<const void *, size_t> data(olg_value v) const {
    const void *p = nullptr;
    size_t n = 0;
    check(olg_value_data(g_, v, &p, &n));
    return {p, n};
  }
  olg_value input(size_t i) const noexcept { return olg_graph_input_at(g_, i); }
  olg_value output(size_t i) const noexcept { return olg_graph_output_at(g_, i); }
  olg_value initializer(size_t i) const noexcept { return olg_graph_initializer_at(g_, i); }
  std::string node_op(olg_node_id n) const {
    const char *s = olg_node_op(g_, n);
    if (!s) throw Error(OLG_ERR_RANGE, "node id out of range");
    return s;
  }
  std::string node_domain(olg_node_id n) const {
    const char *s = olg_node_domain(g_, n);
    if (!s) throw Error(OLG_ERR_RANGE, "node id out of range");
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

namespace detail {
inline std::string format_diag(const olg_diags *d, size_t i) {
  std::string s(olg_diag_format(d, i, nullptr, 0), '\0');
  if (!s.empty()) olg_diag_format(d, i, &s[0], s.size() + 1);
  return s;
}
}  // namespace detail

// One diagnostic, every field copied out of the list.
struct Diag {
  olg_severity severity = OLG_ERROR;
  std::string code, node, domain, op, message;
  int64_t opset = -1;       // -1 when it does not apply
  int64_t min_opset = -1;   // a lowering refusal: the lowest opset that works (else -1)
  int64_t node_index = -1;  // the node's place in its graph (-1 unknown): names an unnamed node
  std::string output;       // the node's first output ("" unknown)
  std::string text;         // the library's rendering (olg_diag_format), set when copied out

  // The library's one rendering: "error OLG-X: node 'n1' (Relu, output 'y', opset 17): message".
  std::string to_string() const {
    if (!text.empty()) return text;
    olg_diags *d = nullptr;  // a Diag made by hand: rendered through a list of one
    if (olg_diags_new(&d, nullptr) != OLG_OK) return code + ": " + message;
    olg_diags_add(d, severity, code.c_str(), node.c_str(), domain.c_str(), op.c_str(), opset,
                  message.c_str());
    std::string s = detail::format_diag(d, 0);
    olg_diags_free(d);
    return s;
  }
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
  bool empty() const noexcept { return size() == 0; }
  size_t error_count() const noexcept { return olg_diags_error_count(d_.get()); }
  size_t warning_count() const noexcept { return count(OLG_WARNING); }
  // No errors (warnings and notes allowed).
  bool ok() const noexcept { return error_count() == 0; }
  // Diagnostics that could not be recorded for want of memory.
  size_t lost() const noexcept { return olg_diags_lost(d_.get()); }
  void add(olg_severity sev, const std::string &code, const std::string &message,
           const std::string &node = "", const std::string &domain = "",
           const std::string &op = "", int64_t opset = -1) {
    check(olg_diags_add(d_.get(), sev, code.c_str(), node.c_str(), domain.c_str(), op.c_str(),
                        opset, message.c_str()));
  }
  olg_severity severity(size_t i) const {
    at(olg_diag_code(d_.get(), i));
    return static_cast<olg_severity>(olg_diag_severity(d_.get(), i));
  }
  std::string code(size_t i) const { return at(olg_diag_code(d_.get(), i)); }
  std::string node(size_t i) const { return at(olg_diag_node(d_.get(), i)); }
  std::string domain(size_t i) const { return at(olg_diag_domain(d_.get(), i)); }
  std::string op(size_t i) const { return at(olg_diag_op(d_.get(), i)); }
  int64_t opset(size_t i) const {
    at(olg_diag_code(d_.get(), i));
    return olg_diag_opset(d_.get(), i);
  }
  std::string message(size_t i) const { return at(olg_diag_message(d_.get(), i)); }
  int64_t min_opset(size_t i) const {
    at(olg_diag_code(d_.get(), i));
    return olg_diag_min_opset(d_.get(), i);
  }
  Diag operator[](size_t i) const {
    Diag d;
    d.severity = severity(i);
    d.code = code(i);
    d.node = node(i);
    d.domain = domain(i);
    d.op = op(i);
    d.opset = opset(i);
    d.message = message(i);
    d.min_opset = min_opset(i);
    d.node_index = olg_diag_node_index(d_.get(), i);
    d.output = olg_diag_output(d_.get(), i);
    d.text = detail::format_diag(d_.get(), i);
    return d;
  }
  // Every diagnostic, in order (so `for (const Diag &d : diags.list())`).
  std::vector<Diag> list() const {
    std::vector<Diag> v;
    for (size_t i = 0; i < size(); i++) v.push_back((*this)[i]);
    return v;
  }
  // One line per diagnostic.
  std::string to_string() const {
    std::string s;
    for (size_t i = 0; i < size(); i++) s += (*this)[i].to_string() + "\n";
    return s;
  }
  void clear() noexcept { olg_diags_clear(d_.get()); }

 private:
  size_t count(olg_severity sev) const noexcept {
    size_t n = 0;
    for (size_t i = 0; i < size(); i++) n += olg_diag_severity(d_.get(), i) == sev;
    return n;
  }
  static std::string at(const char *s) {
    if (!s) throw Error(OLG_ERR_RANGE, "diagnostic index out of range");
    return s;
  }
  DiagsPtr d_;
};

// A failure that left diagnostics (legalize, a check that found errors, shape inference): what()
// is the status and the message followed by one line per diagnostic; diags() has all of them.
class DiagnosticError : public Error {
 public:
  DiagnosticError(olg_status status, const std::string &message, const Diags &d)
      : Error(status, with_lines(message, d)), diags_(d.list()) {}
  const std::vector<Diag> &diags() const noexcept { return diags_; }

 private:
  static std::string with_lines(const std::string &message, const Diags &d) {
    std::string s = message;
    std::string lines = d.to_string();
    if (!lines.empty()) s += "\n" + lines.substr(0, lines.size() - 1);
    return s;
  }
  std::vector<Diag> diags_;
};
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

// Options of olg_check in C++ form.
struct CheckOptions {
  bool full = false;             // run shape and type inference too (OLG-INFER-*)
  bool allow_unlowered = false;  // source-framework nodes are warnings, not errors
  size_t max_errors = 0;         // 0: report all
  bool notes = true;
  bool strict = false;           // OLG-CHECK-IR-OLD, OLG-CHECK-AXIS-NEGATIVE as errors
  olg_check_options c() const {
    olg_check_options o = OLG_CHECK_OPTIONS_INIT;
    o.full = full;
    o.allow_unlowered = allow_unlowered;
    o.max_errors = max_errors;
    o.notes = notes;
    o.strict = strict;
    return o;
  }
};

namespace detail {
// Owns a model handle and whatever the model's tensors borrow from (the source model of a
// legalized model, the bytes of read_memory), so that they live exactly as long as it does.
struct ModelHolder {
  olg_model *m = nullptr;
  std::shared_ptr<const void> keep;
  ModelHolder(olg_model *m_, std::shared_ptr<const void> keep_) : m(m_), keep(std::move(keep_)) {}
  ModelHolder(const ModelHolder &) = delete;
  ModelHolder &operator=(const ModelHolder &) = delete;
  ~ModelHolder() { olg_model_free(m); }  // before `keep` is released: members die after the body
};
}  // namespace detail

// An owned model. Move-only; its handle is shared only with the models that borrow from it (a
// legalized model keeps its source alive, see legalize()).
class Model {
 public:
  explicit Model(int64_t opset = 17) {
    olg_model *m = nullptr;
    onnxlegal::check(olg_model_new(&m, nullptr));
    h_ = std::make_shared<detail::ModelHolder>(m, nullptr);
    if (opset > 0) set_opset("", opset);
  }
  explicit Model(ModelPtr m) {
    if (!m) throw Error(OLG_ERR_INVALID_ARG, "onnxlegal::Model: null model");
    h_ = std::make_shared<detail::ModelHolder>(m.get(), nullptr);
    m.release();
  }
  // Takes a handle, plus what its tensors borrow from (kept alive as long as the model).
  Model(olg_model *m, std::shared_ptr<const void> keep) {
    if (!m) throw Error(OLG_ERR_INVALID_ARG, "onnxlegal::Model: null model");
    try {
      h_ = std::make_shared<detail::ModelHolder>(m, std::move(keep));
    } catch (...) {
      olg_model_free(m);
      throw;
    }
  }
  Model(Model &&) noexcept = default;
  Model &operator=(Model &&) noexcept = default;
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  static Model read(const std::string &path) {
    olg_model *m = nullptr;
    onnxlegal::check(olg_model_read_file(&m, path.c_str(), nullptr));
    return Model(ModelPtr(m));
  }
  // The bytes are borrowed: they must outlive the model.
  static Model read_memory(const void *data, size_t n) {
    olg_model *m = nullptr;
    onnxlegal::check(olg_model_read_memory(&m, data, n, nullptr));
    return Model(ModelPtr(m));
  }
  // The bytes are moved into the model's keeping: nothing to outlive.
  static Model read_bytes(std::string bytes) {
    auto owned = std::make_shared<const std::string>(std::move(bytes));
    olg_model *m = nullptr;
    onnxlegal::check(olg_model_read_memory(&m, owned->data(), owned->size(), nullptr));
    return Model(m, owned);
  }

  olg_model *get() const noexcept { return h_ ? h_->m : nullptr; }
  // Gives the handle up (the caller frees it with olg_model_free). Refused while another model
  // borrows from this one or this one borrows from anything: the borrow would become unchecked.
  olg_model *release() {
    if (!h_) return nullptr;
    if (h_.use_count() != 1 || h_->keep)
      throw Error(OLG_ERR_STATE, "onnxlegal::Model::release: the model shares tensor data");
    olg_model *m = h_->m;
    h_->m = nullptr;
    h_.reset();
    return m;
  }
  // The shared owner of the handle: a model built from this one's tensors keeps it.
  std::shared_ptr<const void> share() const { return h_; }
  // For legalize(Model &&): the handle, given up with what its tensors borrow from (moved into
  // keep), when no other model shares it; nullptr, the model unchanged, otherwise.
  olg_model *give_up(std::shared_ptr<const void> &keep) noexcept {
    if (!h_ || h_.use_count() != 1) return nullptr;
    keep = std::move(h_->keep);
    olg_model *m = h_->m;
    h_->m = nullptr;
    h_.reset();
    return m;
  }

  Graph graph() { return Graph(olg_model_graph(get())); }
  Graph subgraph(const std::string &name = "") {
    olg_graph *g = nullptr;
    onnxlegal::check(olg_model_new_subgraph(get(), &g));
    Graph sub(g);
    if (!name.empty()) sub.set_name(name);
    return sub;
  }

  // Model-local functions: (domain, name, body) in file order.
  struct Function {
    std::string domain, name;
    Graph body;
  };
  std::vector<Function> functions() const {
    std::vector<Function> v;
    for (size_t i = 0; i < olg_model_function_count(get()); i++) {
      const char *d = nullptr, *n = nullptr;
      olg_graph *b = nullptr;
      onnxlegal::check(olg_model_function_at(get(), i, &d, &n, &b));
      v.push_back(Function{d, n, Graph(b)});
    }
    return v;
  }
  // body: a subgraph() whose formal inputs were listed with Graph::add_formal_input and
  // outputs with add_output; its nodes may refer to `attributes`.
  void add_function(const std::string &domain, const std::string &name, Graph body,
                    const std::vector<std::string> &attributes = {}) {
    std::vector<const char *> a;
    for (const auto &s : attributes) a.push_back(s.c_str());
    onnxlegal::check(olg_model_add_function(get(), domain.c_str(), name.c_str(), body.get(),
                                            a.data(), a.size()));
  }
  // Every call replaced by the function's body; the functions dropped.
  void inline_functions() { onnxlegal::check(olg_model_inline_functions(get())); }

  void set_opset(const std::string &domain, int64_t version) {
    onnxlegal::check(olg_model_set_opset(get(), domain.c_str(), version));
  }
  int64_t opset(const std::string &domain = "") const {
    return olg_model_opset(get(), domain.c_str());
  }
  // Every imported (domain, version).
  std::vector<std::pair<std::string, int64_t>> opsets() const {
    std::vector<std::pair<std::string, int64_t>> v;
    for (size_t i = 0; i < olg_model_opset_count(get()); i++) {
      const char *d = nullptr;
      int64_t ver = 0;
      onnxlegal::check(olg_model_opset_at(get(), i, &d, &ver));
      v.emplace_back(d ? d : "", ver);
    }
    return v;
  }
  void set_ir_version(int64_t v) { onnxlegal::check(olg_model_set_ir_version(get(), v)); }
  int64_t ir_version() const noexcept { return olg_model_ir_version(get()); }
  void set_string(olg_model_field f, const std::string &s) {
    onnxlegal::check(olg_model_set_string(get(), f, s.c_str()));
  }
  std::string string(olg_model_field f) const { return olg_model_string(get(), f); }
  void set_metadata(const std::string &k, const std::string &v) {
    onnxlegal::check(olg_model_set_metadata(get(), k.c_str(), v.c_str()));
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
    onnxlegal::check(olg_model_write_file(get(), path.c_str(), &o));
  }
  std::string to_bytes() const {
    std::string out;
    onnxlegal::check(olg_model_write_callback(get(), detail::append_to_string, &out, nullptr));
    return out;
  }
  std::string to_text() const {
    std::string out;
    onnxlegal::check(olg_model_print_text(get(), detail::append_to_string, &out));
    return out;
  }
  std::string to_dot() const {
    std::string out;
    onnxlegal::check(olg_model_print_dot(get(), detail::append_to_string, &out));
    return out;
  }

  // Validates the model (olg_check) and returns every finding; an invalid model is not an
  // exception here (see ok()), a failure to finish is.
  Diags check(const CheckOptions &opts = CheckOptions()) const {
    Diags d;
    olg_check_options o = opts.c();
    olg_status s = olg_check(get(), &o, d.get());
    if (s != OLG_OK && s != OLG_ERR_INVALID_MODEL) throw DiagnosticError(s, olg_last_error(), d);
    return d;
  }
  Diags check(bool full) const {
    CheckOptions o;
    o.full = full;
    return check(o);
  }
  // As check(), but an invalid model throws DiagnosticError with every finding.
  Diags check_or_throw(const CheckOptions &opts = CheckOptions()) const {
    Diags d = check(opts);
    if (!d.ok()) throw DiagnosticError(OLG_ERR_INVALID_MODEL, "the model is not valid", d);
    return d;
  }
  // Shape and type inference (olg_infer_shapes): records what it infers on the values (read
  // them with Graph::dtype/shape). Returns the warnings; throws DiagnosticError on a model
  // inference cannot accept.
  Diags infer_shapes(const CheckOptions &opts = CheckOptions()) {
    Diags d;
    olg_check_options o = opts.c();
    olg_status s = olg_infer_shapes(get(), &o, d.get());
    if (s != OLG_OK) throw DiagnosticError(s, olg_last_error(), d);
    return d;
  }

 private:
  std::shared_ptr<detail::ModelHolder> h_;
};

class Lower;

// The C++ form of olg_legalize_options.
struct LegalizeOptions {
  int64_t opset = 0;       // 0: OLG_LEGALIZE_DEFAULT_OPSET
  int64_t ir_version = 0;  // 0: the one released with the opset
  bool keep_initializers_as_inputs = false;
  bool constant_folding = true;
  bool decompositions = true;
  std::string profile;  // "" or a built-in profile: "ort", "tensorrt", "openvino"
  // A caller's profile (olg_profile_new ...), used instead of `profile`; borrowed by each call.
  const olg_profile *profile_object = nullptr;
  bool report = false;        // one note per lowered node in the diagnostics (how it was lowered)
  bool fold_weights = false;  // BatchNormalization into Conv/Gemm/MatMul, equal weights merged
  bool keep_functions = false;  // keep the called functions, bodies converted (opset >= 15)
  LegalizeOptions() = default;
  LegalizeOptions(int64_t opset_) : opset(opset_) {}  // NOLINT: implicit, so {13} reads naturally
};

// A symbolic function: reads the source node through the context, emits target nodes, binds the
// outputs. Failing is throwing: onnxlegal::Error from a context call (its diagnostic is already
// recorded), or any other std::exception (recorded as an error with its what()).
using Symbolic = std::function<void(Lower &)>;
// A shape function of a custom-domain op: set the node's output types in g.
using ShapeFn = std::function<void(Graph &, olg_node_id)>;

// An owned registry of symbolic functions. C++ callables are kept by the registry (the C
// registry gets a trampoline and a pointer to the callable), so it is move-only, and must
// outlive every legalize call that uses it.
class Registry {
 public:
  // An empty registry.
  Registry() {
    olg_registry *r = nullptr;
    check(olg_registry_new(&r, nullptr));
    r_.reset(r);
  }
  // Every built-in symbolic; not frozen, so that the caller can add to it.
  static Registry builtin() {
    olg_registry *r = nullptr;
    check(olg_registry_new_builtin(&r, nullptr));
    return Registry(r);
  }
  Registry(Registry &&) noexcept = default;
  Registry &operator=(Registry &&) noexcept = default;

  olg_registry *get() const noexcept { return r_.get(); }
  void freeze() { check(olg_registry_freeze(r_.get())); }
  bool frozen() const noexcept { return olg_registry_is_frozen(r_.get()) != 0; }

  // Registers fn for (domain, op) from since_opset on (OLG_LOWER_OPSET_MIN: every opset), as a
  // native lowering or, with lowering = OLG_LOWERING_DECOMPOSED, a decomposition.
  void add(const std::string &domain, const std::string &op, int since_opset, Symbolic fn,
           olg_lowering lowering = OLG_LOWERING_NATIVE) {
    fns_.push_back(std::move(fn));
    try {
      check(olg_registry_add_ex(r_.get(), domain.c_str(), op.c_str(), since_opset, lowering,
                                &Registry::trampoline, &fns_.back()));
    } catch (...) {
      fns_.pop_back();
      throw;
    }
  }
  // "(domain, op) cannot be expressed from since_opset on".
  void add_none(const std::string &domain, const std::string &op, int since_opset) {
    check(olg_registry_add_ex(r_.get(), domain.c_str(), op.c_str(), since_opset,
                              OLG_LOWERING_NONE, nullptr, nullptr));
  }
  void remove(const std::string &domain, const std::string &op, int since_opset) {
    check(olg_registry_remove(r_.get(), domain.c_str(), op.c_str(), since_opset));
  }
  void add_shape_fn(const std::string &domain, const std::string &op, ShapeFn fn) {
    shape_fns_.push_back(std::move(fn));
    try {
      check(olg_registry_add_shape_fn(r_.get(), domain.c_str(), op.c_str(),
                                      &Registry::shape_trampoline, &shape_fns_.back()));
    } catch (...) {
      shape_fns_.pop_back();
      throw;
    }
  }
  void set_domain_version(const std::string &domain, int64_t version) {
    check(olg_registry_set_domain_version(r_.get(), domain.c_str(), version));
  }

  // How (domain, op) lowers at opset (an olg_lowering), and the lowest opset at which it lowers
  // (natively with native_only), or -1.
  olg_lowering lowering(const std::string &domain, const std::string &op, int opset) const {
    return static_cast<olg_lowering>(
        olg_registry_lowering(r_.get(), domain.c_str(), op.c_str(), opset));
  }
  int min_opset(const std::string &domain, const std::string &op, bool native_only = false) const {
    return olg_registry_min_opset(r_.get(), domain.c_str(), op.c_str(), native_only ? 1 : 0);
  }
  size_t op_count() const noexcept { return olg_registry_op_count(r_.get()); }
  std::pair<std::string, std::string> op_at(size_t i) const {
    const char *d = nullptr, *o = nullptr;
    check(olg_registry_op_at(r_.get(), i, &d, &o));
    return {d, o};
  }

 private:
  struct Free {
    void operator()(olg_registry *r) const noexcept { olg_registry_free(r); }
  };
  explicit Registry(olg_registry *r) : r_(r) {}
  static olg_status trampoline(olg_lower *cx, olg_node_id src, void *ud) noexcept;
  static olg_status shape_trampoline(olg_graph *g, olg_node_id node, void *ud) noexcept {
    try {
      Graph view(g);
      (*static_cast<ShapeFn *>(ud))(view, node);
      return OLG_OK;
    } catch (const Error &e) {
      return e.status();
    } catch (...) {
      return OLG_ERR_CALLBACK;
    }
  }
  std::unique_ptr<olg_registry, Free> r_;
  // std::list: the addresses given to the C registry never move.
  std::list<Symbolic> fns_;
  std::list<ShapeFn> shape_fns_;
};

// Builds one node of the target graph, from a symbolic: inputs and attributes, then end().
class Emit {
 public:
  Emit(olg_lower *cx, olg_node_id n) : cx_(cx), n_(n) {}
  Emit &input(olg_value v) { return step(olg_lower_emit_input(cx_, n_, v)); }
  Emit &inputs(std::initializer_list<olg_value> vs) {
    for (olg_value v : vs) input(v);
    return *this;
  }
  Emit &attr(const char *name, int64_t v) { return step(olg_lower_emit_attr_int(cx_, n_, name, v)); }
  Emit &attr(const char *name, int v) { return attr(name, static_cast<int64_t>(v)); }
  Emit &attr(const char *name, double v) {
    return step(olg_lower_emit_attr_float(cx_, n_, name, v));
  }
  Emit &attr(const char *name, const char *v) {
    return step(olg_lower_emit_attr_string(cx_, n_, name, v));
  }
  Emit &attr(const char *name, const std::vector<int64_t> &v) {
    return step(olg_lower_emit_attr_ints(cx_, n_, name, v.data(), v.size()));
  }
  Emit &attr(const char *name, const std::vector<float> &v) {
    return step(olg_lower_emit_attr_floats(cx_, n_, name, v.data(), v.size()));
  }
  // The node is written as its op was defined at opset v: the library converts it to the target
  // opset (olg_lower_emit_end_at), so that the symbolic needs no opset test of its own.
  Emit &version(int v) {
    version_ = v;
    return *this;
  }
  std::vector<olg_value> end(size_t n_out = 1) {
    std::vector<olg_value> outs(n_out, OLG_NO_VALUE);
    check(version_ > 0 ? olg_lower_emit_end_at(cx_, n_, version_, n_out, outs.data())
                       : olg_lower_emit_end(cx_, n_, n_out, outs.data()));
    return outs;
  }
  olg_value end1() { return end(1).at(0); }

 private:
  Emit &step(olg_status s) {
    check(s);
    return *this;
  }
  olg_lower *cx_;
  olg_node_id n_;
  int version_ = 0;
};

// The lowering context a symbolic is given (legalize.h): valid during that call only.
class Lower {
 public:
  explicit Lower(olg_lower *cx, olg_node_id src) : cx_(cx), src_(src) {}
  olg_lower *get() const noexcept { return cx_; }
  olg_node_id source_node() const noexcept { return src_; }

  int64_t opset() const noexcept { return olg_lower_opset(cx_); }
  int64_t source_opset() const noexcept { return olg_lower_source_opset(cx_); }
  std::string profile() const { return olg_lower_profile(cx_); }
  bool decompositions_allowed() const noexcept { return olg_lower_decompositions_allowed(cx_) != 0; }
  std::string node_name() const { return olg_lower_node_name(cx_); }
  std::string node_domain() const { return olg_lower_node_domain(cx_); }
  std::string node_op() const { return olg_lower_node_op(cx_); }

  size_t arg_count() const noexcept { return olg_lower_arg_count(cx_); }
  int arg_kind(size_t i) const noexcept { return olg_lower_arg_kind(cx_, i); }
  bool arg_is_none(size_t i) const noexcept { return olg_lower_arg_is_none(cx_, i) != 0; }
  olg_value arg_value(size_t i) {
    olg_value v;
    check(olg_lower_arg_value(cx_, i, &v));
    return v;
  }
  std::vector<olg_value> arg_values(size_t i) {
    const olg_value *v = nullptr;
    size_t n = 0;
    check(olg_lower_arg_values(cx_, i, &v, &n));
    return std::vector<olg_value>(v, v + n);
  }
  int64_t arg_int(size_t i) {
    int64_t v;
    check(olg_lower_arg_int(cx_, i, &v));
    return v;
  }
  double arg_float(size_t i) {
    double v;
    check(olg_lower_arg_float(cx_, i, &v));
    return v;
  }
  bool arg_bool(size_t i) {
    int v;
    check(olg_lower_arg_bool(cx_, i, &v));
    return v != 0;
  }
  std::string arg_string(size_t i) {
    const char *v = nullptr;
    check(olg_lower_arg_string(cx_, i, &v));
    return v;
  }
  std::vector<int64_t> arg_ints(size_t i) {
    const int64_t *v = nullptr;
    size_t n = 0;
    check(olg_lower_arg_ints(cx_, i, &v, &n));
    return std::vector<int64_t>(v, v + n);
  }
  std::vector<double> arg_floats(size_t i) {
    const double *v = nullptr;
    size_t n = 0;
    check(olg_lower_arg_floats(cx_, i, &v, &n));
    return std::vector<double>(v, v + n);
  }
  olg_value arg_as_tensor(size_t i, olg_dtype dtype = OLG_UNDEFINED) {
    olg_value v;
    check(olg_lower_arg_as_tensor(cx_, i, dtype, &v));
    return v;
  }
  bool src_attr_has(const std::string &name) const {
    return olg_lower_src_attr_has(cx_, name.c_str()) != 0;
  }
  int64_t src_attr_int(const std::string &name) {
    int64_t v;
    check(olg_lower_src_attr_int(cx_, name.c_str(), &v));
    return v;
  }
  double src_attr_float(const std::string &name) {
    double v;
    check(olg_lower_src_attr_float(cx_, name.c_str(), &v));
    return v;
  }
  std::string src_attr_string(const std::string &name) {
    const char *v = nullptr;
    check(olg_lower_src_attr_string(cx_, name.c_str(), &v));
    return v;
  }
  std::vector<int64_t> src_attr_ints(const std::string &name) {
    const int64_t *v = nullptr;
    size_t n = 0;
    check(olg_lower_src_attr_ints(cx_, name.c_str(), &v, &n));
    return std::vector<int64_t>(v, v + n);
  }
  size_t output_count() const noexcept { return olg_lower_output_count(cx_); }
  bool output_used(size_t i) const noexcept { return olg_lower_output_used(cx_, i) != 0; }

  // What inference knows of a target value.
  olg_dtype dtype(olg_value v) const noexcept { return olg_lower_value_dtype(cx_, v); }
  int32_t rank(olg_value v) const noexcept { return olg_lower_value_rank(cx_, v); }
  int64_t dim(olg_value v, int32_t i) const noexcept {
    return olg_lower_value_dim(cx_, v, i, nullptr);
  }
  bool known(olg_value v) const noexcept { return olg_lower_value_known(cx_, v) != 0; }
  std::vector<int64_t> known_ints(olg_value v) {
    const int64_t *p = nullptr;
    size_t n = 0;
    check(olg_lower_value_ints(cx_, v, &p, &n));
    return std::vector<int64_t>(p, p + n);
  }

  // Emitting: domain "" is ONNX.
  Emit emit(const std::string &op, const std::string &domain = "") {
    olg_node_id n;
    check(olg_lower_emit_begin(cx_, domain.c_str(), op.c_str(), &n));
    return Emit(cx_, n);
  }
  olg_value constant(olg_dtype dtype, const std::vector<int64_t> &dims, const void *data,
                     size_t nbytes) {
    olg_value v;
    check(olg_lower_emit_const(cx_, dtype, static_cast<int32_t>(dims.size()), dims.data(), data,
                               nbytes, &v));
    return v;
  }
  olg_value constant_ints(const std::vector<int64_t> &v) {
    olg_value out;
    check(olg_lower_emit_const_ints(cx_, v.data(), v.size(), &out));
    return out;
  }
  void bind_output(size_t i, olg_value v) { check(olg_lower_bind_output(cx_, i, v)); }

  // Diagnostics. error / unsupported / decompose-refused throw onnxlegal::Error after recording
  // their diagnostic, so a symbolic can `cx.unsupported("...", 11);` and stop there.
  void warning(const std::string &message) { check(olg_lower_warning(cx_, message.c_str())); }
  [[noreturn]] void error(const std::string &message, olg_status code = OLG_ERR_UNSUPPORTED) {
    olg_status s = olg_lower_error(cx_, code, message.c_str());
    throw Error(s, message);
  }
  [[noreturn]] void unsupported(const std::string &what, int min_opset = -1) {
    olg_status s = olg_lower_unsupported(cx_, what.c_str(), min_opset);
    throw Error(s, what);
  }
  void decompose(const std::string &what, int native_opset) {
    check(olg_lower_decompose(cx_, what.c_str(), native_opset));
  }

 private:
  olg_lower *cx_;
  olg_node_id src_;
};

inline olg_status Registry::trampoline(olg_lower *cx, olg_node_id src, void *ud) noexcept {
  try {
    Lower l(cx, src);
    (*static_cast<Symbolic *>(ud))(l);
    return OLG_OK;
  } catch (const Error &e) {
    // From a context call or Lower::error: the library has recorded the diagnostic (or will
    // report the status with a generic one).
    return e.status() == OLG_OK ? OLG_ERR_CALLBACK : e.status();
  } catch (const std::exception &e) {
    return olg_lower_error(cx, OLG_ERR_CALLBACK, e.what());
  } catch (...) {
    return olg_lower_error(cx, OLG_ERR_CALLBACK, "the symbolic threw a non-std exception");
  }
}

namespace detail {
inline olg_legalize_options c_options(const LegalizeOptions &opts) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opts.opset;
  o.ir_version = opts.ir_version;
  o.keep_initializers_as_inputs = opts.keep_initializers_as_inputs;
  o.no_constant_folding = !opts.constant_folding;
  o.no_decompositions = !opts.decompositions;
  o.profile = opts.profile.empty() ? nullptr : opts.profile.c_str();
  o.profile_object = opts.profile_object;
  o.report = opts.report ? 1 : 0;
  o.fold_weights = opts.fold_weights ? 1 : 0;
  o.keep_functions = opts.keep_functions ? 1 : 0;
  return o;
}

// The result of a legalize call that returned s, with d's findings before it numbering had.
inline Model legalized(olg_status s, olg_model *out, const Diags &d, size_t had,
                       std::shared_ptr<const void> keep) {
  // a bad argument (an opset out of range, an unknown profile) is not a finding about the model
  if (s != OLG_OK && d.size() == had) throw Error(s, olg_last_error());
  if (s != OLG_OK) throw DiagnosticError(s, olg_last_error(), d);
  return Model(out, std::move(keep));
}
}  // namespace detail

// Legalizes src for the target opset with registry r; the result keeps src alive (it borrows
// src's tensor bytes), so src may be destroyed first. Findings (warnings) go to diags when
// given; a failure throws DiagnosticError with every finding (every unsupported op, every node).
inline Model legalize(const Model &src, const Registry &r,
                      const LegalizeOptions &opts = LegalizeOptions(), Diags *diags = nullptr) {
  olg_legalize_options o = detail::c_options(opts);
  Diags local;
  Diags &d = diags ? *diags : local;
  size_t had = d.size();
  olg_model *out = nullptr;
  olg_status s = olg_legalize(src.get(), r.get(), &o, &out, d.get());
  return detail::legalized(s, out, d, had, src.share());
}

// The same for a source the caller gives up (std::move(src), or Model::read(path) given
// directly): where no other model shares it, the conversion frees it as it goes
// (olg_legalize_consume: a large graph is not held twice) and src is left empty, also when the
// call throws; otherwise this is legalize(src, ...) above. Same result either way.
inline Model legalize(Model &&src, const Registry &r,
                      const LegalizeOptions &opts = LegalizeOptions(), Diags *diags = nullptr) {
  std::shared_ptr<const void> keep;
  olg_model *m = src.give_up(keep);
  if (!m) return legalize(static_cast<const Model &>(src), r, opts, diags);
  olg_legalize_options o = detail::c_options(opts);
  Diags local;
  Diags &d = diags ? *diags : local;
  size_t had = d.size();
  olg_model *out = nullptr;
  olg_status s = olg_legalize_consume(m, r.get(), &o, &out, d.get());
  return detail::legalized(s, out, d, had, std::move(keep));
}

// The built-in registry, built once and frozen (shareable by threads).
inline const Registry &builtin_registry() {
  static const Registry r = [] {
    Registry b = Registry::builtin();
    b.freeze();
    return b;
  }();
  return r;
}

// Converts (legalizes) src to the target opset with the built-in symbolics.
inline Model convert(const Model &src, const LegalizeOptions &opts = LegalizeOptions(),
                     Diags *diags = nullptr) {
  return legalize(src, builtin_registry(), opts, diags);
}
// ... of a source the caller gives up (see legalize(Model &&, ...)).
inline Model convert(Model &&src, const LegalizeOptions &opts = LegalizeOptions(),
                     Diags *diags = nullptr) {
  return legalize(std::move(src), builtin_registry(), opts, diags);
}

}  // namespace onnxlegal

#endif
