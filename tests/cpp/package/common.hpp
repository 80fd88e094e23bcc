// Shared by the package tests: EXPECT, and the source model both programs convert.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <onnxlegal/onnxlegal.hpp>

#define EXPECT(cond)                                                                  \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// x[N,3] -> MatMul W[3,4] -> my::Swish -> ReduceSum(axes input, the opset-13 form) -> y[N,1].
// W is copied into the model, so the model owns its bytes and a legalized model borrows them.
inline onnxlegal::Model make_source(const std::vector<float> &w) {
  onnxlegal::Model m(17);
  m.set_opset("my", 1);
  onnxlegal::Graph g = m.graph();
  g.set_name("server");
  olg_value x = g.add_input("x", OLG_FLOAT, {onnxlegal::Dim("N"), 3});
  olg_value wv = g.add_initializer("W", OLG_FLOAT, {3, 4}, w, OLG_DATA_COPY);
  std::vector<int64_t> axes{1};
  olg_value av = g.add_initializer("axes", OLG_INT64, {1}, axes, OLG_DATA_COPY);
  olg_value h = g.node("MatMul", "", "fc").input(x).input(wv).end1();
  olg_value s = g.node("Swish", "my", "act").input(h).end1();
  olg_value y = g.node("ReduceSum", "", "sum").input(s).input(av).attr("keepdims", 1)
                    .output("y").end1();
  g.set_type(y, OLG_FLOAT, {onnxlegal::Dim("N"), 1});
  g.add_output(y);
  return m;
}

// my::Swish(x) = x * Sigmoid(x), as a C++ lambda that captures a counter.
inline void add_swish(onnxlegal::Registry &r, int *calls) {
  r.add("my", "Swish", OLG_LOWER_OPSET_MIN, [calls](onnxlegal::Lower &cx) {
    ++*calls;
    olg_value x = cx.arg_value(0);
    olg_value sg = cx.emit("Sigmoid").input(x).end1();
    cx.bind_output(0, cx.emit("Mul").input(x).input(sg).end1());
  });
}
