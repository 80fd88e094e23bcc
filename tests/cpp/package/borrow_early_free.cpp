// The legalized model borrows its source's tensor bytes (legalize.h). Through the C++ types that
// borrow is safe: the result shares ownership of the source's handle, so destroying the source
// Model first leaves the result whole. Built with AddressSanitizer by the test when it can, so
// a use after free fails loudly rather than reading stale bytes.
#include <cstring>

#include "common.hpp"

static onnxlegal::Model convert_and_drop_source(const std::vector<float> &w) {
  onnxlegal::Registry r = onnxlegal::Registry::builtin();
  int calls = 0;
  add_swish(r, &calls);
  onnxlegal::Model src = make_source(w);
  return onnxlegal::legalize(src, r, 9);
  // src and r are destroyed here; the result keeps src's handle alive
}

int main(int argc, char **argv) {
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); i++) w[i] = 1.0f + static_cast<float>(i);
  onnxlegal::Model out = convert_and_drop_source(w);
  // scribble over freed memory of the same size classes the source's tensors had
  std::vector<std::vector<float>> noise;
  for (int i = 0; i < 64; i++) noise.emplace_back(12, -7.0f);

  onnxlegal::Graph g = out.graph();
  auto bytes = g.data(g.find("W"));
  EXPECT(bytes.second == w.size() * sizeof(float));
  EXPECT(std::memcmp(bytes.first, w.data(), bytes.second) == 0);
  EXPECT(out.check(true).ok());

  // written and read back: the weights survive the round trip
  onnxlegal::Model back = onnxlegal::Model::read_bytes(out.to_bytes());
  auto again = back.graph().data(back.graph().find("W"));
  EXPECT(again.second == bytes.second && std::memcmp(again.first, w.data(), again.second) == 0);
  EXPECT(back.opset() == 9);

  // release() is refused while the handle is shared or borrows
  bool threw = false;
  try {
    out.release();
  } catch (const onnxlegal::Error &e) {
    threw = e.status() == OLG_ERR_STATE;
  }
  EXPECT(threw);
  if (argc > 1) out.write(argv[1]);
  std::printf("ok: %zu nodes after the source was freed\n", g.node_count());
  return 0;
}
