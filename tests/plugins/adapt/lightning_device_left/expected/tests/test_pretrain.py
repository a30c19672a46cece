# decoy: a test's Fabric runs on the CPU by design
import lightning as L


def test_setup():
    fabric = L.Fabric(devices=1)
    assert fabric.world_size == 1
