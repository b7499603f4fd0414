"""Writes an oracle fixture: the header keys, then one trajectory per line (valid JSON, small
diffs when a fixture is regenerated). Shared by the oracle scripts of this folder."""

import json


def write_fixture(path, doc):
    # One trajectory per line: valid JSON, small diffs.
    head = {k: v for k, v in doc.items() if k != "trajectories"}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v)},")
    lines.append('  "trajectories": [')
    trs = doc["trajectories"]
    for i, tr in enumerate(trs):
        lines.append("    " + json.dumps(tr) + ("," if i + 1 < len(trs) else ""))
    lines.append("  ]")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == json.loads(json.dumps(doc))
    with open(path, "w") as f:
        f.write(text)
