"""The one-script bundle of a module graph (pwa.py `bundle`): it does what the modules do, or is refused."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from inspection.web.pwa import BUNDLES, Unbundlable, _imported, bundle, fingerprint_files

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# A small graph with what ours uses: named, renamed and namespace imports, a bare import run for its effect, a
# re-export, an exported pattern, a class, an async function, and the same top-level names in several modules.
GRAPH = {
    "log.js": "export const seen = [];\nexport function note(what) { seen.push(what); }\n",
    "a.js": "import { note } from './log.js';\nconst count = 1;\nnote(`a ${count}`);\n"
            "export const { x, y } = { x: 10, y: 20 };\nexport class Box { constructor(v) { this.v = v; } }\n"
            "export async function later(v) { return v * 2; }\nfunction hidden() { return 'a'; }\n"
            "export { hidden as secret };\n",
    "b.js": "import { note, seen } from './log.js';\nimport * as a from './a.js';\nconst count = 2;\n"
            "note(`b ${count} ${typeof this}`);\nexport { note as remark, seen };\n"
            "export const keys = Object.keys(a).sort();\n",
    "side.js": "import { note } from './log.js';\nnote('side');\n",
    "main.js": "import { remark, seen, keys } from './b.js';\nimport './side.js';\n"
               "import {\n  x as ex,\n  Box, later, secret,\n} from './a.js';  // a comment after the statement\n"
               "const count = 3;\nremark(`main ${count}`);\n"
               "later(ex).then((doubled) => console.log(JSON.stringify({ seen, keys, doubled, box: new Box(4).v,"
               " secret: secret() })));\n",
}


def write(folder: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (folder / name).write_text(source)


def bundled(folder: Path, entry: str = "main.js") -> str:
    def resolve(name: str, specifier: str) -> str | None:
        target = _imported(name, specifier)
        return target if target and (folder / target).is_file() else None

    return bundle(entry, lambda name: (folder / name).read_text(), resolve)


@needs_node
def test_the_bundle_does_what_the_modules_do(tmp_path):
    """Same effects in the same order, same values through every kind of import, and each module's own scope."""
    write(tmp_path, {**GRAPH, "package.json": '{"type": "module"}'})
    (tmp_path / "bundle.mjs").write_text(bundled(tmp_path))
    runs = [subprocess.run([NODE, name], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True).stdout
            for name in ("main.js", "bundle.mjs")]
    assert runs[0] == runs[1]
    assert json.loads(runs[1]) == {"seen": ["a 1", "b 2 undefined", "side", "main 3"], "doubled": 20, "box": 4,
                                   "keys": ["Box", "later", "secret", "x", "y"], "secret": "a"}


@pytest.mark.parametrize(("source", "reason"), [
    ("export let n = 1;\n", "live binding"),
    ("export var n = 1;\n", "live binding"),
    ("export function f() {}\nf = () => 1;\n", "assigns to its export f"),
    ("export default 1;\n", "default export"),
    ("export * from './log.js';\n", r"export \*"),
    ("export { note } from './log.js';\n", "export … from"),
    ("export const where = import.meta.url;\n", "import.meta"),
    ("export const later = () => import('./log.js');\n", "dynamic import"),
    ("const kept = await Promise.resolve(1);\n", "top-level await"),
    ("import note from './log.js';\n", "default import"),
    ("import { nothing } from './log.js';\n", "exports no nothing"),
    ("import { x } from 'somewhere';\n", "names no module of ours"),
    ("import './main.js';\n", "import cycle"),
    ("const __bundled_0 = 1;\n", "prefix"),
])
def test_what_it_cannot_keep_the_same_is_refused(tmp_path, source, reason):
    write(tmp_path, {**GRAPH, "main.js": "import './odd.js';\n", "odd.js": source})
    with pytest.raises(Unbundlable, match=reason):
        bundled(tmp_path)


@needs_node
def test_the_inspection_screen_is_one_script_of_its_whole_graph(tmp_path):
    """Every module the screen imports is in, once, its first read before the app's modules, and node can load it."""
    static = ROOT / "static"
    assets = fingerprint_files(static)
    body = assets["js/tablet/inspection.bundle.js"].body.decode()
    modules = re.findall(r"^// --- (\S+)$", body, re.MULTILINE)
    assert len(modules) == len(set(modules)) and modules[-1] == BUNDLES["js/tablet/inspection.bundle.js"]
    assert {"vendor/idb.js", "js/i18n.js", "js/tablet/store.js", "js/tablet/sync.js",
            "js/tablet/signature.js"} <= set(modules)
    assert modules.index("js/tablet/first-read.js") < modules.index("js/tablet/app.js")
    assert not re.search(r"^\s*(import|export)\b", body, re.MULTILINE)
    (tmp_path / "bundle.mjs").write_text(body)
    subprocess.run([NODE, "--check", str(tmp_path / "bundle.mjs")], check=True, timeout=60)


def test_the_page_loads_the_bundle_which_the_worker_keeps(app, client, make_user, login_as):
    """The screen (its offline shell) asks for one script, served immutable under its fingerprint, and the worker
    precaches that URL."""
    inspector = login_as(make_user(role="inspector"))
    page = inspector.get("/tablet/inspeccion").get_data(as_text=True)
    scripts = re.findall(r'<script type="module"[^>]*src="([^"]+)"', page)
    assert [s.split("?")[0] for s in scripts] == ["/static/js/pwa.js", "/static/js/tablet/inspection.bundle.js"]
    assert 'rel="modulepreload"' not in page
    served = client.get(scripts[1])
    assert served.status_code == 200 and served.mimetype == "text/javascript"
    assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert f"'{scripts[1]}'" in client.get("/sw.js").get_data(as_text=True)
