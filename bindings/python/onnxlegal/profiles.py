"""Target profiles (docs/profiles.md): what a runtime accepts beyond valid ONNX, as rules per
(op, since-version range), each named, with an optional rewrite.

    import onnxlegal
    from onnxlegal.profiles import Profile, builtin_names, check

    builtin_names()                            # ("ort", "tensorrt", ...)
    check(onnxlegal.Model.read("m.onnx"), "ort")   # [] or the violations, as dicts

    p = Profile("myrt", base="ort")            # ort's rules, plus these:
    p.add_type_rule("myrt/no-int8-where", "Where", 9, constraint="T", types=["float", "int32"])
    @p.rewrite("myrt/no-int8-where")
    def widen(cx, node):                       # cx: a lowering.Lower; node: a target node id
        ...                                    # emit with cx.emit, then
        cx.replace_value(old, new)             # for each output of the node
        return True                            # False: refuse (the rule is named)
    onnxlegal.convert("m.onnx", 11, profile=p)

A profile given to convert/legalize is borrowed for the call; keep the Profile alive meanwhile.
"""
from ctypes import byref, c_int, c_void_p

from . import _dtypes
from ._lib import (ERR_CALLBACK, ERR_INVALID_MODEL, ERR_UNSUPPORTED, PROFILE_REWRITE_FN as REWRITE_FN,
                   Error, call, check as _check, dec, enc, lib)



def builtin_names():
    """The names of the built-in profiles."""
    names, i = [], 0
    while True:
        n = lib.olg_profile_builtin_name(i)
        if not n:
            return tuple(names)
        names.append(dec(n))
        i += 1


class Profile:
    """A profile: a built-in one (Profile.builtin(name)) or the caller's own (Profile(name, base))."""

    def __init__(self, name, base=None):
        b = None
        if base is not None:
            b = (base if isinstance(base, Profile) else Profile.builtin(base)).handle
        h = c_void_p()
        call("olg_profile_new", byref(h), enc(name), b)
        self._h, self._own, self._callbacks = h.value, True, []
        self._base = base  # a caller-defined base must outlive this profile

    @classmethod
    def builtin(cls, name):
        h = lib.olg_profile_builtin(enc(name))
        if not h:
            raise ValueError("unknown profile %r; the known profiles are: %s" % (
                name, ", ".join(builtin_names())))
        p = cls.__new__(cls)
        p._h, p._own, p._callbacks, p._base = h, False, [], None
        return p

    @property
    def handle(self):
        if not self._h:
            raise ValueError("the profile is closed")
        return self._h

    @property
    def name(self):
        return dec(lib.olg_profile_name(self.handle))

    def close(self):
        if self._own and self._h:
            lib.olg_profile_free(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- rules ----
    def add_op_rule(self, rule, op, since, until=0):
        """The op is not supported at since-versions since..until (0: every later one)."""
        call("olg_profile_add_op_rule", self.handle, enc(rule), enc(op), int(since), int(until))

    def add_type_rule(self, rule, op, since, until=0, constraint=None, slot=0, types=()):
        """The dtypes (names or codes) accepted for the inputs/outputs of type constraint
        `constraint`, or, without one, of input `slot` (output k: -1-k)."""
        codes = [_dtypes.dtype_code(t) for t in types]
        arr = (c_int * len(codes))(*codes)
        call("olg_profile_add_type_rule", self.handle, enc(rule), enc(op), int(since), int(until),
             enc(constraint) if constraint else None, int(slot), arr, len(codes))

    def add_known_input_rule(self, rule, op, since, until=0, input=0):
        """Input `input`, when present, must be known at conversion time."""
        call("olg_profile_add_known_input_rule", self.handle, enc(rule), enc(op), int(since),
             int(until), int(input))

    def add_rank_rule(self, rule, op, since, until=0, slot=0, min_rank=0, max_rank=0):
        call("olg_profile_add_rank_rule", self.handle, enc(rule), enc(op), int(since), int(until),
             int(slot), int(min_rank), int(max_rank))

    def set_rewrite(self, rule, fn):
        """fn(cx: lowering.Lower, node: int) rewrites the violating node of the target graph
        (cx.target_node_inputs(node), cx.emit, then cx.replace_value for each output) and
        returns True; False or raising refuses the node, naming the rule."""
        from .lowering import Lower

        def trampoline(cx, node, _rule, _ud):
            try:
                ok = fn(Lower(cx), node)
                return 0 if ok else ERR_UNSUPPORTED
            except Error as e:
                return e.status
            except BaseException as e:  # noqa: B902 - a Python bug in the rewrite
                lib.olg_lower_warning(cx, enc("rewrite %s: %s: %s" % (dec(_rule), type(e).__name__, e)))
                return ERR_CALLBACK

        cb = REWRITE_FN(trampoline)
        self._callbacks.append(cb)
        call("olg_profile_set_rewrite", self.handle, enc(rule), cb, None)

    def rewrite(self, rule):
        """Decorator form of set_rewrite."""
        def deco(fn):
            self.set_rewrite(rule, fn)
            return fn
        return deco

    def check(self, model):
        """Every violation of model (an onnxlegal.Model; its types get inferred) as a list of
        diagnostic dicts (code OLG-PROFILE-VIOLATION); [] when it complies."""
        from ._model import Diags
        from .lowering import diagnostic_records
        d = Diags()
        try:
            st = lib.olg_profile_check(model.handle, self.handle, d.handle)
            if st != ERR_INVALID_MODEL:
                _check(st, "olg_profile_check")
            return [r for r in diagnostic_records(d) if r["code"] == "OLG-PROFILE-VIOLATION"]
        finally:
            d.close()


def check(model, profile):
    """The violations of `profile` (a name or a Profile) in model, as diagnostic dicts."""
    p = profile if isinstance(profile, Profile) else Profile.builtin(profile)
    return p.check(model)


__all__ = ["Profile", "builtin_names", "check", "REWRITE_FN"]
