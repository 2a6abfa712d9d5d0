"""`flask --app app checklists check`: validates the law's data and reports what it covers."""
import shutil

import checklists
from checklists import ChecklistError
from checklists.loader import DATA_DIR


def test_check_reports_items_and_articles_per_checklist(runner):
    result = runner.invoke(args=["checklists", "check"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for kind in ("navegabilidad", "seguridad", "documentacion", "menores", "conducta"):
        assert any(line.startswith(f"{kind} ") and "items)" in line for line in lines), kind
    seguridad = next(line for line in lines if line.startswith("seguridad ") and "Ley 928/1927" in line)
    assert "arts." in seguridad and " 141," in seguridad  # lifebuoys (art. 141)
    assert lines[-1].startswith("Datos válidos: 5 listas,")


def test_a_broken_catalogue_exits_non_zero_naming_file_and_item(runner, monkeypatch):
    def broken(directory=None):
        raise ChecklistError("unknown name 'eslora' in required", "seguridad.toml", "seg.lifebuoys.total")

    monkeypatch.setattr(checklists, "load_catalog", broken)
    result = runner.invoke(args=["checklists", "check"])
    assert result.exit_code != 0
    assert "seguridad.toml" in result.output and "seg.lifebuoys.total" in result.output
    assert "unknown name 'eslora'" in result.output
    assert "Datos válidos" not in result.output


def test_a_duplicate_id_in_a_data_directory_is_refused(runner, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data, ignore=shutil.ignore_patterns("*.py", "__pycache__", "*.md"))
    path = data / "seguridad.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('id = "seg.machinery.running"',
                                                            'id = "seg.machinery.condition"', 1), encoding="utf-8")
    result = runner.invoke(args=["checklists", "check", "--dir", str(data)])
    assert result.exit_code != 0
    assert "seguridad.toml" in result.output and "seg.machinery.condition" in result.output
    assert "duplicate id" in result.output
