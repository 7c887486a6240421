"""Re-encodes a `Model` protobuf so that it means the same (or nearly) but uses the corners of the
wire format a protobuf decoder must handle: unpacked and mixed packed/unpacked repeated scalars,
unknown fields of every wire type (groups included), map entries with the value before the key,
repeated keys and repeated entries, overlong varints, a oneof/scalar set twice, truncations.
Used by seeds.py for the `model_proto` and `pipeline` seeds (stdlib only: no protobuf package).

The schema below names only the messages on the way to an ML program's operations and inside
them (`Model.mlProgram`, pipelines, MIL `Program` … `Value`); every other field is copied as is."""

# message name -> {field number: kind}; kind is a message name, "map:<value message>",
# "packed:<varint|fixed32|fixed64>", or "raw" (scalar/bytes/unknown message: copied untouched).
SCHEMA = {
    "Model": {502: "Program", 200: "PipelineHolder", 201: "PipelineHolder", 202: "Pipeline"},
    "PipelineHolder": {1: "Pipeline"},
    "Pipeline": {1: "Model"},
    "Program": {2: "map:Function", 4: "map:Value"},
    "Function": {1: "NamedValueType", 3: "map:Block", 4: "map:Value"},
    "Block": {1: "NamedValueType", 3: "Operation", 4: "map:Value"},
    "Operation": {2: "map:Argument", 3: "NamedValueType", 4: "Block", 5: "map:Value"},
    "Argument": {1: "Binding"},
    "Binding": {2: "Value"},
    "NamedValueType": {2: "ValueType"},
    "ValueType": {1: "TensorType", 2: "ListType", 3: "TupleType", 4: "DictionaryType",
                  5: "StateType"},
    "TensorType": {3: "Dimension", 4: "map:Value"},
    "Dimension": {1: "Raw", 2: "Raw"},
    "TupleType": {1: "ValueType"},
    "ListType": {1: "ValueType", 2: "Dimension"},
    "DictionaryType": {1: "ValueType", 2: "ValueType"},
    "StateType": {1: "ValueType"},
    "Value": {2: "ValueType", 3: "ImmediateValue", 5: "Raw"},
    "ImmediateValue": {1: "TensorValue", 2: "ValueList", 3: "ValueList", 4: "DictionaryValue"},
    "TensorValue": {1: "RepeatedFloats", 2: "RepeatedVarints", 3: "RepeatedVarints", 4: "Raw",
                    5: "RepeatedVarints", 6: "RepeatedDoubles", 7: "Raw"},
    "RepeatedFloats": {1: "packed:fixed32"},
    "RepeatedDoubles": {1: "packed:fixed64"},
    "RepeatedVarints": {1: "packed:varint"},
    "ValueList": {1: "Value"},
    "DictionaryValue": {1: "KeyValuePair"},
    "KeyValuePair": {1: "Value", 2: "Value"},
    "Raw": {},
}

VARIANTS = ["unpacked", "mixed_packing", "unknown_fields", "map_value_first", "map_repeated",
            "overlong_varints", "fields_twice", "everything"]


class Malformed(Exception):
    pass


def read_varint(b, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(b) or shift > 63:
            raise Malformed
        byte = b[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def parse(b):
    """Top-level fields of a message: (number, wire type, payload bytes or int)."""
    out, pos = [], 0
    while pos < len(b):
        key, pos = read_varint(b, pos)
        number, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = read_varint(b, pos)
        elif wt == 1:
            v, pos = b[pos:pos + 8], pos + 8
        elif wt == 2:
            n, pos = read_varint(b, pos)
            v, pos = b[pos:pos + n], pos + n
        elif wt == 5:
            v, pos = b[pos:pos + 4], pos + 4
        else:
            raise Malformed  # groups are not expected in the corpus
        if pos > len(b):
            raise Malformed
        out.append((number, wt, v))
    return out


class Writer:
    def __init__(self, variant):
        self.variant = variant
        self.count = 0  # alternates choices deterministically

    def on(self, *names):
        return self.variant in names or self.variant == "everything"

    def varint(self, v, overlong_ok=True):
        v &= (1 << 64) - 1
        out = bytearray()
        while True:
            if v < 0x80:
                out.append(v)
                break
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        if overlong_ok and self.on("overlong_varints") and len(out) < 10:
            # Pad to 10 bytes with continuation bytes carrying zero bits (still the same value).
            out[-1] |= 0x80
            out += b"\x80" * (9 - len(out)) + b"\x00"
        return bytes(out)

    def key(self, number, wt):
        return self.varint(number << 3 | wt)

    def field(self, number, wt, payload):
        if wt == 0:
            return self.key(number, 0) + self.varint(payload)
        if wt == 2:
            return self.key(number, 2) + self.varint(len(payload)) + payload
        return self.key(number, wt) + payload

    def unknowns(self):
        """One unknown field of each wire type, numbers no MIL message uses."""
        group = self.key(1, 0) + self.varint(7) + self.key(2, 2) + self.varint(1) + b"x"
        return (self.field(1000, 0, 150)
                + self.field(1001, 1, b"\x01" * 8)
                + self.field(1002, 2, b"\x08\x01unknown")
                + self.key(1003, 3) + group + self.key(1004, 3) + self.key(1004, 4) + self.key(1003, 4)
                + self.field(1005, 5, b"\x02" * 4)
                + self.field(536870911, 0, 0))  # the largest field number

    def one_unknown(self):
        """One small unknown field, its wire type taking turns."""
        self.count += 1
        return [self.field(2000, 0, 1), self.field(2001, 1, b"\0" * 8), self.field(2002, 2, b"u"),
                self.key(2003, 3) + self.key(2003, 4), self.field(2004, 5, b"\0" * 4)][self.count % 5]

    def message(self, name, b):
        fields = parse(b)
        kinds = SCHEMA[name]
        out = bytearray()
        if self.on("unknown_fields"):
            out += self.unknowns()
        for i, (number, wt, v) in enumerate(fields):
            if i and self.on("unknown_fields"):
                out += self.one_unknown()  # between known fields too
            kind = kinds.get(number, "raw")
            if wt != 2 or kind == "raw":
                out += self.field(number, wt, v)
            elif kind.startswith("map:"):
                out += self.map_entry(number, kind[4:], v)
            elif kind.startswith("packed:"):
                out += self.packed(number, kind[7:], v)
            else:
                out += self.field(number, 2, self.message(kind, v))
            if self.on("fields_twice") and wt == 0 and kind == "raw":
                # A scalar set twice: the last one wins, so repeat the same value.
                out += self.field(number, wt, v)
        return bytes(out)

    def map_entry(self, number, value_kind, entry):
        key, value, extra = None, None, []
        for n, wt, v in parse(entry):
            if n == 1 and wt == 2:
                key = v
            elif n == 2 and wt == 2:
                value = self.message(value_kind, v)
            else:
                extra.append((n, wt, v))
        parts_key = self.field(1, 2, key) if key is not None else b""
        parts_value = self.field(2, 2, value) if value is not None else b""
        rest = b"".join(self.field(n, wt, v) for n, wt, v in extra)
        if self.on("map_value_first"):
            body = parts_value + rest + parts_key
        else:
            body = parts_key + rest + parts_value
        if self.on("map_repeated") and key is not None:
            # The key twice inside the entry (the last wins) and the whole entry twice (the
            # last of equal keys wins): the same map.
            body = self.field(1, 2, b"shadowed-key") + body
            entry_bytes = self.field(number, 2, body)
            if self.variant == "everything":
                return entry_bytes  # doubling every nested map would grow exponentially
            return entry_bytes + entry_bytes
        return self.field(number, 2, body)

    def packed(self, number, scalar, payload):
        if scalar == "varint":
            items, pos = [], 0
            while pos < len(payload):
                v, pos = read_varint(payload, pos)
                items.append(v)
        else:
            size = 4 if scalar == "fixed32" else 8
            items = [payload[i:i + size] for i in range(0, len(payload), size)]
        wt = {"varint": 0, "fixed32": 5, "fixed64": 1}[scalar]

        def one(v):
            return self.field(number, wt, v)

        def pack(vs):
            if scalar == "varint":
                body = b"".join(self.varint(v) for v in vs)
            else:
                body = b"".join(vs)
            return self.field(number, 2, body)

        if self.variant == "unpacked":
            return b"".join(one(v) for v in items)
        if self.on("mixed_packing") and items:
            # First half packed, then one unpacked, then the rest packed: one list in order.
            half = len(items) // 2
            return pack(items[:half]) + one(items[half]) + pack(items[half + 1:])
        return pack(items)


def variant(model_bytes, name):
    """`model_bytes` re-encoded as `name` says, or None when it does not parse as expected."""
    try:
        return Writer(name).message("Model", model_bytes)
    except (Malformed, KeyError):
        return None


def has_program(model_bytes):
    """Whether the model is an ML program (has `Model.mlProgram`)."""
    try:
        return any(n == 502 and wt == 2 for n, wt, _ in parse(model_bytes))
    except Malformed:
        return False


def truncations(model_bytes):
    """A few prefixes cut inside the ML program (after its start), where nested lengths overrun."""
    try:
        fields = parse(model_bytes)
    except Malformed:
        return []
    start = 0
    for number, wt, v in fields:
        if number == 502 and wt == 2:
            start = model_bytes.find(v)
            break
    if start <= 0:
        return []
    span = len(model_bytes) - start
    return [model_bytes[:start + span * k // 7] for k in range(1, 7)]


def overlong_eleven(model_bytes):
    """The ML program's length as an 11-byte varint (one byte too many): must be refused."""
    try:
        fields = parse(model_bytes)
    except Malformed:
        return None
    out = bytearray()
    w = Writer("")
    for number, wt, v in fields:
        if number == 502 and wt == 2:
            n = w.varint(len(v), overlong_ok=False)
            n = bytes(c | 0x80 for c in n) + b"\x80" * (10 - len(n)) + b"\x00"
            out += w.key(number, 2) + n + v
        else:
            out += w.field(number, wt, v)
    return bytes(out)
