"""The cache levels a run probes, read from a faked sysfs: the usual topology, and the ones a
VM or a container shows (none, a size of 0, an absurd size, an unreadable file)."""

from __future__ import annotations

from pathlib import Path

from engine.machine.caches import cache_levels, parse_size, unprobed_note

MIB = 2**20


def add_cache(root: Path, cpu: int, index: int, level: int, kind: str, size: str, shared: str):
    folder = root / f"cpu{cpu}" / "cache" / f"index{index}"
    folder.mkdir(parents=True)
    for name, value in (
        ("level", level),
        ("type", kind),
        ("size", size),
        ("shared_cpu_list", shared),
    ):
        (folder / name).write_text(f"{value}\n")


def epyc(root: Path, cpus: int = 2, l3: str = "32768K") -> Path:
    """Each core its L1 and 1 MiB L2; one L3 shared by all (this project's machine)."""
    for cpu in range(cpus):
        add_cache(root, cpu, 0, 1, "Data", "32K", str(cpu))
        add_cache(root, cpu, 1, 1, "Instruction", "32K", str(cpu))
        add_cache(root, cpu, 2, 2, "Unified", "1024K", str(cpu))
        if l3:
            add_cache(root, cpu, 3, 3, "Unified", l3, f"0-{cpus - 1}")
    return root


def test_l2_is_summed_over_the_run_cores_and_a_shared_l3_counted_once(tmp_path):
    levels, reason = cache_levels(epyc(tmp_path), cpus=[0, 1])
    assert reason is None
    assert [(lv.name, lv.bytes, lv.instances) for lv in levels] == [
        ("L2", 2 * MIB, 2),
        ("L3", 32 * MIB, 1),
    ]


def test_only_the_cpus_the_run_may_use_count(tmp_path):
    levels, _ = cache_levels(epyc(tmp_path, cpus=4), cpus=[2])
    assert [(lv.name, lv.bytes) for lv in levels] == [("L2", MIB), ("L3", 32 * MIB)]


def test_a_vm_that_hides_its_l3_has_one_level(tmp_path):
    levels, reason = cache_levels(epyc(tmp_path, l3=""), cpus=[0, 1])
    assert reason is None and [lv.name for lv in levels] == ["L2"]


def test_no_sysfs_means_memory_only_with_a_reason(tmp_path):
    levels, reason = cache_levels(tmp_path / "absent", cpus=[0])
    assert levels == () and reason == "the OS reports no L2 or larger cache"
    assert "only memory's ceiling was measured: the OS reports no L2" in unprobed_note(reason)


def test_a_size_of_zero_or_over_a_tebibyte_is_not_believed(tmp_path):
    for size in ("0K", "2048G"):
        root = tmp_path / size
        add_cache(root, 0, 2, 2, "Unified", size, "0")
        levels, reason = cache_levels(root, cpus=[0])
        assert levels == () and "the OS reports L2 as" in reason


def test_an_unreadable_size_means_memory_only(tmp_path):
    add_cache(tmp_path, 0, 2, 2, "Unified", "lots", "0")
    levels, reason = cache_levels(tmp_path, cpus=[0])
    assert levels == () and "L2 as 0 bytes" in reason
    (tmp_path / "cpu0" / "cache" / "index2" / "level").write_text("two")
    levels, reason = cache_levels(tmp_path, cpus=[0])
    assert levels == () and "could not be read (ValueError)" in reason


def test_sizes_parse_as_the_kernel_writes_them():
    assert (
        parse_size("1024K\n") == MIB and parse_size("32M") == 32 * MIB and parse_size("x") is None
    )
