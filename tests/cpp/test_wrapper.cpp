// The header-only C++ wrapper (bindings/cpp/onnxlegal.hpp): builds a model with a subgraph and a
// source node, prints it, writes it, and turns failures into exceptions. Prints what a pytest
// (tests/py/test_cpp_wrapper.py) checks; exits non-zero on the first failed check.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "onnxlegal.hpp"

#define EXPECT(cond)                                                       \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

int main(int argc, char **argv) {
  const char *out_path = argc > 1 ? argv[1] : nullptr;
  std::vector<float> w(3 * 4);
  for (size_t i = 0; i < w.size(); i++) w[i] = static_cast<float>(i) * 0.5f;

  onnxlegal::Model m(17);
  m.set_ir_version(8);
  m.set_string(OLG_MODEL_PRODUCER_NAME, "cpp-wrapper-test");
  m.set_metadata("k", "v");
  onnxlegal::Graph g = m.graph();
  g.set_name("cpp");
  olg_value x = g.add_input("x", OLG_FLOAT, {onnxlegal::Dim("N"), 3});
  olg_value c = g.add_input("c", OLG_BOOL, {});
  olg_value wv = g.add_initializer("w", OLG_FLOAT, {3, 4}, w);
  olg_value t = g.node("MatMul").input(x).input(wv).output("t").end1();
  g.set_type(t, OLG_FLOAT, {onnxlegal::Dim("N"), 4});

  onnxlegal::Graph then_g = m.subgraph("then_g");
  olg_value o1 = then_g.node("Relu").input(then_g.outer("t")).output("o1").end1();
  then_g.set_type(o1, OLG_FLOAT, {onnxlegal::Dim("N"), 4});
  then_g.add_output(o1);
  onnxlegal::Graph else_g = m.subgraph("else_g");
  olg_value o2 = else_g.node("LeakyRelu").input(else_g.outer("t")).attr("alpha", 0.5f).output("o2").end1();
  else_g.set_type(o2, OLG_FLOAT, {onnxlegal::Dim("N"), 4});
  else_g.add_output(o2);
  olg_value y = g.node("If").input(c).attr("then_branch", then_g).attr("else_branch", else_g)
                    .output("y").end1();
  g.set_type(y, OLG_FLOAT, {onnxlegal::Dim("N"), 4});
  olg_value z = g.node("Transpose", "", "tr").input(y).attr("perm", std::vector<int64_t>{1, 0})
                    .output("z").end1();
  g.set_type(z, OLG_FLOAT, {4, onnxlegal::Dim("N")});
  g.add_output(z);
  EXPECT(g.node_count() == 3 && g.input_count() == 2 && g.initializer_count() == 1);
  EXPECT(g.value_name(z) == "z" && g.find("t") == t);

  // exceptions carry the status and the library's message
  bool threw = false;
  try {
    g.add_input("x", OLG_FLOAT, {1});
  } catch (const onnxlegal::Error &e) {
    threw = e.status() == OLG_ERR_DUPLICATE && e.message().find("'x'") != std::string::npos &&
            std::string(e.what()).rfind("OLG_ERR_DUPLICATE: ", 0) == 0;
  }
  EXPECT(threw);

  std::string text = m.to_text();
  EXPECT(text.find("z = Transpose <perm = [1, 0]> (y)") != std::string::npos);
  std::string dot = m.to_dot();
  EXPECT(dot.rfind("digraph \"cpp\" {", 0) == 0);

  // a source-framework node with literal arguments, in a model of its own
  {
    onnxlegal::Model src(0);
    onnxlegal::Graph sg = src.graph();
    olg_value a = sg.add_input("a", OLG_FLOAT, {2, 2});
    olg_value s = sg.node("sum", "aten").input(a).arg(std::vector<int64_t>{1}).arg(true).none().end1();
    sg.add_output(s);
    EXPECT(src.to_text().find("aten.sum (a, [1], true, none)") != std::string::npos);
  }

  // a model-local function, listed, called twice and inlined
  {
    onnxlegal::Model fm(17);
    onnxlegal::Graph body = fm.subgraph("Twice");
    olg_value a = body.add_value("a");
    body.add_formal_input(a);
    body.add_output(body.node("Add").input(a).input(a).output("b").end1());
    fm.add_function("local", "Twice", body);
    fm.set_opset("local", 1);
    onnxlegal::Graph mg = fm.graph();
    olg_value in = mg.add_input("in", OLG_FLOAT, {2});
    olg_value t1 = mg.node("Twice", "local", "t1").input(in).output("h").end1();
    mg.add_output(mg.node("Twice", "local", "t2").input(t1).output("out").end1());
    EXPECT(fm.functions().size() == 1 && fm.functions()[0].name == "Twice");
    fm.inline_functions();
    onnxlegal::Graph ig = fm.graph();
    EXPECT(fm.functions().empty() && ig.node_count() == 2);
    EXPECT(fm.to_text().find("out = Add (") != std::string::npos);
  }

  // a target opset out of range is a bad argument (Error), not a finding (DiagnosticError);
  // the options reach the library: report notes, a caller's profile object
  {
    onnxlegal::Model src(17);
    onnxlegal::Graph sg = src.graph();
    sg.set_name("relu");
    olg_value a = sg.add_input("a", OLG_FLOAT, {2});
    olg_value b = sg.node("Relu").input(a).output("b").end1();
    sg.set_type(b, OLG_FLOAT, {2});
    sg.add_output(b);
    bool plain = false;
    try {
      onnxlegal::convert(src, 99);
    } catch (const onnxlegal::DiagnosticError &) {
      plain = false;
    } catch (const onnxlegal::Error &e) {
      plain = e.status() == OLG_ERR_INVALID_ARG && e.message().find("99") != std::string::npos;
    }
    EXPECT(plain);
    onnxlegal::LegalizeOptions lo(13);
    lo.report = true;
    lo.profile_object = olg_profile_builtin("openvino");
    EXPECT(lo.profile_object != nullptr);
    onnxlegal::Diags notes;
    onnxlegal::convert(src, lo, &notes);
    EXPECT(notes.size() == 1 && notes.code(0) == "OLG-LOWER-KEPT");
  }

  // a source given up (std::move) is converted by olg_legalize_consume and left empty, to the
  // same model as a source kept; one another model still borrows from is only read
  {
    onnxlegal::Model src(13);
    onnxlegal::Graph sg = src.graph();
    sg.set_name("given");
    olg_value a = sg.add_input("a", OLG_FLOAT, {3});
    std::vector<float> bw{1, 2, 3};
    olg_value b = sg.add_initializer("b", OLG_FLOAT, {3}, bw);  // borrowed: bw outlives the models
    sg.add_initializer("c", OLG_FLOAT, {2}, std::vector<float>{4, 5});  // a temporary: copied
    std::vector<float> reuse(2, -1.0f);  // most likely where the temporary was
    EXPECT(src.to_text().find("float[2] c = {4, 5}") != std::string::npos && reuse[0] == -1.0f);
    olg_value s = sg.node("Add").input(a).input(b).output("s").end1();
    sg.add_output(sg.node("ReduceMax").input(s).attr("axes", std::vector<int64_t>{0}).output("r").end1());
    std::string want = onnxlegal::convert(src, {18}).to_text();
    {
      onnxlegal::Model kept = onnxlegal::convert(src, {17});  // a source that borrows from src
      std::string twice = onnxlegal::convert(kept, {18}).to_text();
      onnxlegal::Model twice_out = onnxlegal::convert(std::move(kept), {18});  // keeps src
      EXPECT(kept.get() == nullptr && twice_out.to_text() == twice);
    }
    onnxlegal::Model reader = onnxlegal::convert(src, {17});  // borrows from src
    onnxlegal::Model again = onnxlegal::convert(std::move(src), {18});
    EXPECT(src.get() != nullptr && again.to_text() == want);  // shared: only read
    reader = onnxlegal::Model(13);  // neither borrows from src any more
    again = onnxlegal::Model(13);
    onnxlegal::Model last = onnxlegal::convert(std::move(src), {18});
    EXPECT(src.get() == nullptr && last.to_text() == want);
    onnxlegal::Model bad(13);
    onnxlegal::Graph bg = bad.graph();
    bg.add_output(bg.node("NoSuchOp").input(bg.add_input("x", OLG_FLOAT, {1})).output("y").end1());
    bool refused = false;
    try {
      onnxlegal::convert(std::move(bad), {13});
    } catch (const onnxlegal::DiagnosticError &e) {
      refused = e.message().find("NoSuchOp") != std::string::npos;
    }
    EXPECT(refused && bad.get() == nullptr);
  }

  // a symbolic written once with Unsqueeze-13 (axes as an input): converted at 9, kept at 13
  {
    onnxlegal::Model src(0);
    onnxlegal::Graph sg = src.graph();
    sg.set_name("g");
    olg_value in = sg.add_input("x", OLG_FLOAT, {3});
    sg.add_output(sg.node("unsq", "t", "layer").input(in).output("y").end1());
    onnxlegal::Registry r = onnxlegal::Registry::builtin();
    r.add("t", "unsq", OLG_LOWER_OPSET_MIN, [](onnxlegal::Lower &cx) {
      olg_value axes = cx.constant_ints({0});
      cx.bind_output(0, cx.emit("Unsqueeze").input(cx.arg_value(0)).input(axes).version(13).end1());
    });
    r.freeze();
    for (int target : {9, 13}) {
      onnxlegal::Model out = onnxlegal::legalize(src, r, {target});
      std::string t = out.to_text();
      EXPECT(t.find(target < 13 ? "Unsqueeze <axes = [0]>" : "Unsqueeze (x, ") != std::string::npos);
    }
  }

  // diagnostics
  onnxlegal::Diags d;
  d.add(OLG_ERROR, "OLG-TEST", "something", "n1", "", "Relu", 17);
  EXPECT(d.size() == 1 && d.error_count() == 1 && d.code(0) == "OLG-TEST" && d.node(0) == "n1");
  d.add(OLG_WARNING, "OLG-TEST-W", "careful", "n2", "my.dom", "Op", 3);
  EXPECT(d.domain(1) == "my.dom" && d.opset(1) == 3 && d.op(1) == "Op" && d.opset(0) == 17);
  EXPECT(d.warning_count() == 1 && !d.ok() && d.list().size() == 2);
  EXPECT(d[1].to_string() == "warning OLG-TEST-W: node 'n2' (my.dom::Op, opset 3): careful");
  EXPECT(d.to_string() == "error OLG-TEST: node 'n1' (Relu, opset 17): something\n" + d[1].to_string() + "\n");
  threw = false;
  try {
    d.message(5);
  } catch (const onnxlegal::Error &e) {
    threw = e.status() == OLG_ERR_RANGE;
  }
  EXPECT(threw);

#ifndef OLG_TEST_NO_WRITER
  if (out_path) {
    m.write(out_path);
    std::string bytes = m.to_bytes();
    EXPECT(!bytes.empty());
    std::printf("wrote %s (%zu bytes)\n", out_path, bytes.size());
  }
#else
  (void)out_path;
#endif
  std::fputs(text.c_str(), stdout);
  return 0;
}
