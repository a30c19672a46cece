from export_weights import export


def test_export(tmp_path):
    export(str(tmp_path / "model.pt"))
    assert (tmp_path / "model.pt").exists()
