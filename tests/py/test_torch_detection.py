"""torchvision's detection models through onnxlegal.torch (issue 22 b): SSDlite, RetinaNet,
Mask R-CNN and Keypoint R-CNN (random weights, made decisive: see _decisive), traced once on
one image, exported at opsets 11, 13 and 17, run in ONNX Runtime (one batch) on two image
sizes and compared with torch eager: the same number of detections, and every detection
matched to one of torch's (same label, box, score; mask / keypoints of the matched pair),
order-insensitively, since torch leaves the order of equal scores undefined.

Ties: torchvision's models built with weights=None score every anchor alike (SSDlite's
MobileNetV3 features underflow to ~1e-13, so every softmax is exactly 1/num_classes), and
which of the tied anchors survive TopK is then torch's choice, not a property of the model:
torch's CPU topk takes an arbitrary subset of equal values (std::nth_element when
k * 64 > n), ONNX TopK the lowest indices. test_ssdlite_tied_scores_follow_onnx_tie_order
holds the export to torch's own post-processing with ONNX's tie order."""
import os
import sys
import tempfile
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
from onnxlegal._torch_trace import flatten  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
warnings.filterwarnings("ignore", category=UserWarning)

OPSETS = (11, 13, 17)
SMALL = dict(min_size=128, max_size=160)  # the R-CNNs' and RetinaNet's transform size
# the R-CNNs: 100 proposals (not 1000: the box head's 12544x1024 Linear would take most of the
# test's time), 20 detections per image into the mask / keypoint heads
RCNN = dict(SMALL, rpn_pre_nms_top_n_test=300, rpn_post_nms_top_n_test=100,
            box_detections_per_img=20)
MODELS = {
    # 2 foreground classes x topk 300 candidates: up to 600 after NMS, none cut by the cap
    "ssdlite320_mobilenet_v3_large": dict(detections_per_img=600),
    "retinanet_resnet50_fpn": dict(SMALL),
    "maskrcnn_resnet50_fpn": dict(RCNN),
    "keypointrcnn_resnet50_fpn": dict(RCNN, num_keypoints=5),
}


def _images():
    torch.manual_seed(1)
    return [torch.rand(3, 80, 100), torch.rand(3, 120, 90)]


def _decisive(model):
    """Random weights that score anchors and proposals apart: BatchNorm statistics measured on
    random images (instead of mean 0 / var 1, under which MobileNetV3's features vanish), and
    each layer of the heads (outside the backbone) scaled, in one run on a random image, so that
    its output has mean 0 (where it has a bias) and std 1 (box regressions 0.1: boxes near their
    anchors): torchvision's std-0.01
    heads give logits that differ by less than float rounding, hence tied scores."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # the cumulative average of the calibration batch
    model.backbone.train()
    with torch.no_grad():
        model.backbone(torch.rand(4, 3, 160, 160))
    model.eval()
    backbone = set(model.backbone.modules())
    done, hooks = set(), []

    def scale(m, inp, out, target):
        if m in done or out.numel() < 2 or not float(out.std()) > 0:
            return None
        done.add(m)
        mean, f = float(out.mean()), target / float(out.std())
        m.weight.mul_(f)
        if m.bias is None:
            return out * f
        m.bias.sub_(mean).mul_(f)
        return (out - mean) * f

    for name, m in model.named_modules():
        if m not in backbone and isinstance(m, (torch.nn.Conv2d, torch.nn.Linear,
                                                torch.nn.ConvTranspose2d)):
            target = 0.1 if ("bbox" in name or "regression" in name) else 1.0
            hooks.append(m.register_forward_hook(
                lambda m, i, o, t=target: scale(m, i, o, t)))
    with torch.no_grad():
        for _ in range(2):  # the second run reaches the mask / keypoint heads
            model([torch.rand(3, 100, 110)])
    for h in hooks:
        h.remove()
    return model


def _model(name, decisive=True, num_classes=3):
    torch.manual_seed(0)
    kw = dict(weights=None, weights_backbone=None, num_classes=num_classes, **MODELS[name])
    model = getattr(torchvision.models.detection, name)(**kw).eval()
    return _decisive(model) if decisive else model


def _export_and_run(model, images, tmp, tag):
    """torch's outputs per image, and ORT's per (opset, image)."""
    from ortrun import run_batch
    wants = []
    for img in images:
        with torch.no_grad():
            want, names = flatten(model([img]))
        wants.append(dict(zip((n.split("_", 1)[1] for n in names), (t.numpy() for t in want))))
    sg = olt.trace(model, ([images[0]],), dynamic_axes={"input_0_0": [1, 2]})
    src = olt.to_source_model(sg)
    batch, keys = [], []
    for opset in OPSETS:
        path = os.path.join(tmp, "%s_%d.onnx" % (tag, opset))
        olt.export_traced(sg, path, opset_version=opset, source_model=src)
        for k, img in enumerate(images):
            batch.append((path, {"input_0_0": img.numpy()}))
            keys.append((opset, k))
    got = {}
    for key, out in zip(keys, run_batch(batch)):
        if not isinstance(out, str):
            out = {n.split("_", 2)[-1]: v for n, v in out.items()}
        got[key] = out
    return wants, got


def _match(want, got, what):
    """Same detections up to order: each of torch's matched to the closest unmatched one of
    ORT's with the same label; boxes, scores and the per-detection outputs agree."""
    assert set(got) == set(want), (what, sorted(got), sorted(want))
    n = want["boxes"].shape[0]
    assert got["boxes"].shape[0] == n, "%s: %d detections, torch %d" % (what, got["boxes"].shape[0], n)
    assert n > 0, "%s: no detections, the comparison would be empty" % what
    free = np.ones(n, bool)
    for i in range(n):
        d = np.abs(got["boxes"] - want["boxes"][i]).max(1) + \
            np.abs(got["scores"] - want["scores"][i]) * 1e3
        d[(got["labels"] != want["labels"][i]) | ~free] = np.inf
        j = int(np.argmin(d))
        assert np.isfinite(d[j]), "%s: torch's detection %d (label %d) has no counterpart" \
            % (what, i, want["labels"][i])
        free[j] = False
        np.testing.assert_allclose(got["boxes"][j], want["boxes"][i], rtol=1e-4, atol=2e-3,
                                   err_msg="%s: box of detection %d" % (what, i))
        np.testing.assert_allclose(got["scores"][j], want["scores"][i], rtol=1e-4, atol=1e-5,
                                   err_msg="%s: score of detection %d" % (what, i))
        for k in want:
            if k in ("boxes", "scores", "labels"):
                continue
            g, w = got[k][j], want[k][i]
            if k == "masks":  # a probability per pixel; a pixel on a box edge may move
                assert np.mean(np.abs(g - w) > 1e-3) < 0.01, "%s: mask %d" % (what, i)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-3, atol=2e-3,
                                           err_msg="%s: %s of detection %d" % (what, k, i))


class _Runs:
    def __init__(self):
        self.done = {}

    def get(self, name):
        if name not in self.done:
            tmp = tempfile.TemporaryDirectory(prefix="olg-torch-detection-")
            self.done[name] = _export_and_run(_model(name), _images(), tmp.name, name) + (tmp,)
        return self.done[name]


RUNS = _Runs()


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", list(MODELS))
def test_detection_matches_torch(name, opset):
    wants, got, _ = RUNS.get(name)
    for k, want in enumerate(wants):
        out = got[(opset, k)]
        what = "%s opset %d image %d" % (name, opset, k)
        assert not isinstance(out, str), "%s: %s" % (what, out)
        _match(want, out, what)


def test_decisive_weights_leave_no_ties():
    """The comparison above does not rest on tie order: torch's scores are distinct."""
    for name in MODELS:
        wants, _, _ = RUNS.get(name)
        for want in wants:
            s = want["scores"]
            assert len(np.unique(s)) == len(s), name


def test_ssdlite_tied_scores_follow_onnx_tie_order():
    """weights=None as it comes: every score is the same. The export keeps the candidates ONNX
    TopK's tie order gives (lowest index first), which is what torch's own post-processing gives
    with a topk of that order (a stable sort); torch's topk keeps other ones (more detections)."""
    # the case: 4 foreground classes, torch 272 detections, the export 256
    model = _model("ssdlite320_mobilenet_v3_large", decisive=False, num_classes=5)
    images = _images()
    with torch.no_grad():
        scores = torch.softmax(model.head(list(model.backbone(
            model.transform(images[:1])[0].tensors).values()))["cls_logits"], -1)
    assert len(torch.unique(scores)) == 1, "the scores are not all tied"

    def stable_topk(self, k, dim=-1, largest=True, sorted=True):
        v, i = self.sort(dim=dim, descending=largest, stable=True)
        return v.narrow(dim, 0, k), i.narrow(dim, 0, k)

    with tempfile.TemporaryDirectory() as tmp:
        wants, got = _export_and_run(model, images, tmp, "ssdlite_tied")
        saved = torch.Tensor.topk
        torch.Tensor.topk = stable_topk
        try:
            onnx_order = []
            for img in images:
                with torch.no_grad():
                    want, names = flatten(model([img]))
                onnx_order.append(dict(zip((n.split("_", 1)[1] for n in names),
                                           (t.numpy() for t in want))))
        finally:
            torch.Tensor.topk = saved
    for k in range(len(images)):
        # torch's own topk keeps other tied anchors, and NMS then keeps another number of them
        assert wants[k]["boxes"].shape[0] != onnx_order[k]["boxes"].shape[0], \
            (wants[k]["boxes"].shape, onnx_order[k]["boxes"].shape)
        for opset in OPSETS:
            out = got[(opset, k)]
            assert not isinstance(out, str), out
            _match(onnx_order[k], out, "ssdlite tied, opset %d image %d" % (opset, k))


class _RoiAlignAligned(torch.nn.Module):
    def forward(self, x, boxes):
        return torchvision.ops.roi_align(x, boxes, (3, 4), spatial_scale=0.5, sampling_ratio=2,
                                         aligned=True)


@pytest.mark.parametrize("opset", (11, 13, 16))
def test_roi_align_aligned_matches_torch(opset):
    """torchvision's roi_align(aligned=True) (RoiAlign's half_pixel): native from 16, by gathers
    below (one emitter with the ONNX op), on feature maps of run-time size."""
    from ortrun import run_batch
    torch.manual_seed(5)
    m = _RoiAlignAligned().eval()

    def boxes(k, hw):
        b = torch.rand(k, 4) * hw * 2 - 4
        b[:, 2:] += b[:, :2].abs()
        return torch.cat([torch.randint(0, 2, (k, 1)).float(), b], 1)
    args = [(torch.randn(2, 3, 10, 12), boxes(5, 12)), (torch.randn(2, 3, 7, 9), boxes(8, 9))]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ra.onnx")
        olt.export(m, args[0], path, opset_version=opset, input_names=["x", "boxes"],
                   dynamic_axes={"x": [2, 3], "boxes": [0]})
        outs = run_batch([(path, {"x": x.numpy(), "boxes": b.numpy()}) for x, b in args])
    for (x, b), out in zip(args, outs):
        assert not isinstance(out, str), out
        np.testing.assert_allclose(list(out.values())[0], m(x, b).numpy(), rtol=1e-5, atol=1e-5)


def test_torchvision_nms_at_9_by_the_loops():
    """torchvision::nms below 10, where NonMaxSuppression does not exist: the op's conversion to 9
    (Loops), run in ONNX Runtime, keeps the boxes torch keeps, in its order (distinct scores;
    IoU at 0.5, suppressed or not)."""
    from ortrun import run_batch

    class M(torch.nn.Module):
        def forward(self, boxes, scores):
            return torchvision.ops.nms(boxes, scores, 0.5)

    torch.manual_seed(3)
    xy = torch.rand(40, 2) * 4
    boxes = torch.cat([xy, xy + 0.5 + torch.rand(40, 2) * 2], dim=1)
    scores = torch.randperm(40).float() / 40
    want = M()(boxes, scores).numpy()
    with tempfile.TemporaryDirectory(prefix="olg-tv-nms-") as d:
        path = os.path.join(d, "m.onnx")
        olt.export(M(), (boxes, scores), path, opset_version=9)
        got = run_batch([(path, {"input_0": boxes.numpy(), "input_1": scores.numpy()})])[0]
    assert not isinstance(got, str), got
    np.testing.assert_array_equal(next(iter(got.values())), want)
