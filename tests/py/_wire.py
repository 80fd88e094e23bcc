"""Protobuf wire bytes for the tests: fields the onnx package here cannot set (it predates IR 10
and 11, and unknown fields have no setter), and a walk over a message's top-level fields."""


def varint(v):
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])


def field(no, payload):
    """A length-delimited field numbered no."""
    return varint(no << 3 | 2) + varint(len(payload)) + payload


def read_varint(b, i):
    """The varint at b[i:] and the offset past it."""
    v = shift = 0
    while True:
        v |= (b[i] & 0x7F) << shift
        shift += 7
        i += 1
        if b[i - 1] < 0x80:
            return v, i


def top_level_tags(msg):
    """The tags of msg's top-level fields, in order (length-delimited and varint fields only)."""
    tags, i = [], 0
    while i < len(msg):
        tag, i = read_varint(msg, i)
        tags.append(tag)
        if tag & 7 == 2:
            n, i = read_varint(msg, i)
            i += n
        else:
            _, i = read_varint(msg, i)
    return tags
