#!/usr/bin/env python3
"""Writes a corpus of SDL Core HMI API JSON-RPC messages, one compact JSON object per line.

One line per <function> of HMI_API.xml, in file order. Each message carries every mandatory
parameter (recursively: the mandatory params of structs too) and no optional ones, in the order
the spec lists them. The envelope key order is the one the Swift encoder writes:

    request:      {"jsonrpc":"2.0","id":N,"method":"UI.Show","params":{...}}
    notification: {"jsonrpc":"2.0","method":"UI.OnCommand","params":{...}}
    response:     {"jsonrpc":"2.0","id":N,"result":{"code":0,"method":"UI.Show",...params...}}

N is the 1-based index of the function in file order. Values are deterministic:

    Boolean  true
    Integer  minvalue if given, else maxvalue if given and < 1, else 1
    Float    minvalue + 0.5 if both bounds and max - min >= 0.5, else minvalue if given,
             else 1.5 (clamped to maxvalue); always a JSON float ("2.0", "0.0", "-179.5")
    String   "x" * max(1, minlength), clamped to maxlength
    Enum     the name of its first <element>
    Struct   an object of its mandatory params, recursively
    Array    max(1, minsize) elements, clamped to maxsize

The Swift tests (Tests/SDLHMIRPCTests) decode each line with the HMI codec, encode it again and
compare the bytes with the line, so this file pins down the exact encoder output.

Usage: hmi_corpus.py PATH/TO/HMI_API.xml OUT.jsonl
Stdlib only. Prints the number of lines per message type and re-parses every line written.
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

SCALARS = {"Boolean", "Integer", "Float", "String"}


def fail(msg):
    sys.exit("hmi_corpus.py: error: " + msg)


def is_mandatory(param):
    value = param.get("mandatory", "true").strip().lower()
    if value not in ("true", "false"):
        fail("param %r has mandatory=%r" % (param.get("name"), value))
    return value == "true"


class Spec:
    def __init__(self, root):
        self.enums = {}    # "Iface.Name" -> first element name
        self.structs = {}  # "Iface.Name" -> <struct> element
        self.functions = []  # (iface name, <function> element), file order
        self.oddities = []
        for iface in root.findall("interface"):
            iname = iface.get("name")
            for child in iface:
                if child.tag == "enum":
                    elements = child.findall("element")
                    if not elements:
                        fail("enum %s.%s has no elements" % (iname, child.get("name")))
                    self.enums[iname + "." + child.get("name")] = elements[0].get("name")
                elif child.tag == "struct":
                    self.structs[iname + "." + child.get("name")] = child
                elif child.tag == "function":
                    self.functions.append((iname, child))

    def resolve(self, type_name, iface):
        """Returns the qualified name of a non-scalar type, trying the current interface for bare names."""
        candidates = [type_name] if "." in type_name else [iface + "." + type_name, "Common." + type_name]
        for name in candidates:
            if name in self.enums or name in self.structs:
                if "." not in type_name:
                    self.oddities.append("unqualified type %r resolved to %s" % (type_name, name))
                return name
        return None

    def value(self, param, iface, stack):
        if param.get("array", "false").strip().lower() == "true":
            count = max(1, int(param.get("minsize", "0")))
            if param.get("maxsize") is not None:
                count = min(count, int(param.get("maxsize")))
            if count < 1:
                self.oddities.append("array %r has maxsize %s" % (param.get("name"), param.get("maxsize")))
            return [self.element(param, iface, stack) for _ in range(count)]
        return self.element(param, iface, stack)

    def element(self, param, iface, stack):
        type_name = param.get("type")
        name = param.get("name")
        if type_name is None:
            fail("param %r has no type (in %s)" % (name, " > ".join(stack)))
        if type_name == "Boolean":
            return True
        if type_name == "Integer":
            lo, hi = param.get("minvalue"), param.get("maxvalue")
            if lo is not None:
                return int(lo)
            if hi is not None and int(hi) < 1:
                return int(hi)
            return 1
        if type_name == "Float":
            lo, hi = param.get("minvalue"), param.get("maxvalue")
            lo = float(lo) if lo is not None else None
            hi = float(hi) if hi is not None else None
            if lo is not None and hi is not None:
                v = lo + 0.5 if hi - lo >= 0.5 else lo
            elif lo is not None:
                v = lo
            else:
                v = 1.5
                if hi is not None:
                    v = min(v, hi)
            return float(v)
        if type_name == "String":
            n = max(1, int(param.get("minlength", "0")))
            if param.get("maxlength") is not None:
                n = min(n, int(param.get("maxlength")))
            if n < 1:
                self.oddities.append("string %r has maxlength %s" % (name, param.get("maxlength")))
            return "x" * n
        qualified = self.resolve(type_name, iface)
        if qualified is None:
            fail("param %r has unknown type %r (in %s)" % (name, type_name, " > ".join(stack)))
        if qualified in self.enums:
            return self.enums[qualified]
        if qualified in stack:
            fail("mandatory recursion: %s" % " > ".join(stack + [qualified]))
        struct = self.structs[qualified]
        return self.params(struct, qualified.split(".")[0], stack + [qualified])

    def params(self, container, iface, stack):
        out = {}
        for param in container.findall("param"):
            if not is_mandatory(param):
                continue
            name = param.get("name")
            if name in out:
                fail("duplicate param %r in %s" % (name, " > ".join(stack)))
            out[name] = self.value(param, iface, stack)
        return out


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("Usage: ")[1].split("\n")[0].join(["usage: ", ""]))
    xml_path, out_path = argv[1], argv[2]
    root = ET.parse(xml_path).getroot()
    if root.tag != "interfaces":
        fail("root element is <%s>, expected <interfaces>" % root.tag)
    spec = Spec(root)

    lines = []
    counts = {}
    seen = set()
    for index, (iface, function) in enumerate(spec.functions, start=1):
        method = iface + "." + function.get("name")
        kind = function.get("messagetype")
        if (method, kind) in seen:
            spec.oddities.append("duplicate function %s (%s)" % (method, kind))
        seen.add((method, kind))
        params = spec.params(function, iface, [method])
        if kind == "request":
            msg = {"jsonrpc": "2.0", "id": index, "method": method, "params": params}
        elif kind == "notification":
            msg = {"jsonrpc": "2.0", "method": method, "params": params}
        elif kind == "response":
            result = {"code": 0, "method": method}
            for key, value in params.items():
                if key in result:
                    fail("response %s has a param named %r" % (method, key))
                result[key] = value
            msg = {"jsonrpc": "2.0", "id": index, "result": result}
        else:
            fail("function %s has messagetype %r" % (method, kind))
        counts[kind] = counts.get(kind, 0) + 1
        lines.append(json.dumps(msg, separators=(",", ":"), ensure_ascii=False))

    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")

    with open(out_path, encoding="utf-8") as f:
        reread = f.read().split("\n")
    if reread[-1] != "":
        fail("output does not end with a newline")
    for number, line in enumerate(reread[:-1], start=1):
        obj = json.loads(line)
        if json.dumps(obj, separators=(",", ":"), ensure_ascii=False) != line:
            fail("line %d does not re-serialize identically" % number)

    print("wrote %d lines to %s" % (len(lines), out_path))
    for kind in ("request", "response", "notification"):
        print("  %-13s %d" % (kind, counts.get(kind, 0)))
    print("all %d lines parse back with json.loads" % (len(reread) - 1))
    for oddity in sorted(set(spec.oddities)):
        print("note: " + oddity)


if __name__ == "__main__":
    main(sys.argv)
