"""import_items / import_judgments: files in, a summary out, a non-zero exit naming bad lines."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item, Judgment

pytestmark = pytest.mark.django_db


def write(path, *records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


ITEM = {"external_id": "a", "input": "x", "outputs": [{"system": "s", "text": "t"}]}


def test_import_items_and_judgments_by_project_id_or_name(project, tmp_path, capsys):
    call_command("import_items", str(project.id), str(write(tmp_path / "i.jsonl", ITEM)), "--no-progress")
    assert "Imported 1 items" in capsys.readouterr().out
    call_command(
        "import_judgments",
        project.name,
        str(
            write(tmp_path / "j.jsonl", {"item": "a", "rater": "w1", "criterion": "fluency", "system": "s", "value": 2})
        ),
        "--no-progress",
    )
    assert Judgment.objects.filter(project=project).count() == 1


def test_csv_is_chosen_by_the_suffix(project, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("external_id,input,output_1,system_1\nc,x,t,s\n")
    call_command("import_items", str(project.id), str(path), "--no-progress")
    assert Item.objects.filter(project=project, external_id="c").exists()


def test_bad_lines_exit_non_zero_and_list_each_line(project, tmp_path, capsys):
    path = write(tmp_path / "bad.jsonl", ITEM, "{", {**ITEM, "external_id": "b", "gold": {"fluency": 8}})
    with pytest.raises(CommandError, match="2 bad lines; nothing was imported"):
        call_command("import_items", str(project.id), str(path), "--no-progress")
    err = capsys.readouterr().err
    assert f"{path}:2: bad JSON" in err and f"{path}:3: gold.fluency value 8 is off the scale" in err
    assert not Item.objects.exists()


def test_unknown_project_or_file_is_a_clear_error(project, tmp_path):
    with pytest.raises(CommandError, match="no project 'nope'"):
        call_command("import_items", "nope", str(tmp_path / "x.jsonl"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_items", str(project.id), str(tmp_path / "missing.jsonl"))
