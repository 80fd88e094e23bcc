// Converts (legalizes) a model as an inference server would, with a C++ lambda as the symbolic
// of a custom op, checks the result fully, and sees every failure arrive as an exception that
// carries the diagnostics. Exits non-zero on the first failed EXPECT.
#include <stdexcept>

#include "common.hpp"

int main(int argc, char **argv) {
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); i++) w[i] = 0.25f * static_cast<float>(i);
  onnxlegal::Model src = make_source(w);

  onnxlegal::Registry r = onnxlegal::Registry::builtin();
  int calls = 0;
  add_swish(r, &calls);
  r.freeze();
  EXPECT(r.frozen() && r.lowering("my", "Swish", 11) == OLG_LOWERING_NATIVE);

  onnxlegal::LegalizeOptions o(11);
  onnxlegal::Diags warnings;
  onnxlegal::Model out = onnxlegal::legalize(src, r, o, &warnings);
  EXPECT(calls == 1);
  EXPECT(out.opset() == 11 && out.opset("my") == -1);
  onnxlegal::Graph g = out.graph();
  std::vector<std::string> ops;
  for (size_t i = 0; i < g.node_count(); i++) ops.push_back(g.node_op(static_cast<olg_node_id>(i)));
  EXPECT((ops == std::vector<std::string>{"MatMul", "Sigmoid", "Mul", "ReduceSum"}));
  // ReduceSum-11 takes axes as an attribute: the axes input became one
  std::string text = out.to_text();
  EXPECT(text.find("ReduceSum <axes = [1], keepdims = 1>") != std::string::npos);

  onnxlegal::Diags d = out.check(true);  // full: with inference
  EXPECT(d.ok());
  onnxlegal::Diags inf = out.infer_shapes();
  EXPECT(inf.ok());
  olg_value y = g.output(0);
  EXPECT(g.dtype(y) == OLG_FLOAT && g.rank(y) == 2 && g.shape(y)[1].value() == 1);

  // the weights are the source's bytes, not a copy
  olg_value wo = g.find("W");
  EXPECT(g.data(wo).first == src.graph().data(src.graph().find("W")).first);

  // convert(): the built-in registry; my::Swish is unknown there, so every finding comes back
  // in one exception, with each field of the diagnostic
  bool threw = false;
  try {
    onnxlegal::convert(src, 13);
  } catch (const onnxlegal::DiagnosticError &e) {
    threw = true;
    EXPECT(!e.diags().empty());
    const onnxlegal::Diag &f = e.diags().front();
    EXPECT(f.severity == OLG_ERROR && f.node == "act" && f.op == "Swish" && f.domain == "my");
    EXPECT(f.opset == 13 && f.code.rfind("OLG-", 0) == 0);
    EXPECT(!f.output.empty() && f.node_index >= 0);
    EXPECT(std::string(e.what()).find("node 'act' (my::Swish, output '" + f.output + "', opset 13)") !=
           std::string::npos);
    std::printf("convert refused: %s\n", e.what());
  }
  EXPECT(threw);

  // a symbolic that throws a std::exception: the lowering fails with its message, no leak
  onnxlegal::Registry bad = onnxlegal::Registry::builtin();
  bad.add("my", "Swish", OLG_LOWER_OPSET_MIN,
          [](onnxlegal::Lower &) { throw std::runtime_error("swish is not ready"); });
  threw = false;
  try {
    onnxlegal::legalize(src, bad, 11);
  } catch (const onnxlegal::DiagnosticError &e) {
    threw = std::string(e.what()).find("swish is not ready") != std::string::npos;
  }
  EXPECT(threw);

  // an invalid model: check_or_throw carries the findings
  onnxlegal::Model broken(17);
  olg_value bx = broken.graph().add_input("x", OLG_FLOAT, {2});
  broken.graph().add_output(broken.graph().node("NoSuchOp").input(bx).end1());
  threw = false;
  try {
    broken.check_or_throw();
  } catch (const onnxlegal::DiagnosticError &e) {
    for (const onnxlegal::Diag &x : e.diags())
      if (x.code == "OLG-CHECK-OP-UNKNOWN" && x.op == "NoSuchOp" && x.opset == 17) threw = true;
  }
  EXPECT(threw);

  if (argc > 1) out.write(argv[1]);
  std::fputs(text.c_str(), stdout);
  return 0;
}
