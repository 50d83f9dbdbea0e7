"""execution.gpus: GPUs exposed to executed answers (bwrap device binds, CUDA_VISIBLE_DEVICES,
docker device requests). This machine has no GPU: the device-node logic runs against a fake
/dev, the bind itself against a real device node bwrap's minimal /dev leaves out (/dev/fuse)."""

from __future__ import annotations

from pathlib import Path

import pytest
from exec_helpers import make_repo

from ragcode.config import ExecutionConfig
from ragcode.errors import ExecutionError
from ragcode.execution import ExecSpec, gpus
from ragcode.execution.bwrap import View


def fake_dev(tmp_path: Path, cards=(0, 1)) -> str:
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ["nvidiactl", "nvidia-uvm", *[f"nvidia{i}" for i in cards]]:
        (dev / name).write_text("")
    return str(dev)


def test_device_nodes_for_all_some_and_no_gpus(tmp_path):
    dev = fake_dev(tmp_path)
    assert gpus.device_nodes([], dev) == []
    assert gpus.device_nodes(["all"], dev) == [f"{dev}/nvidiactl", f"{dev}/nvidia-uvm", f"{dev}/nvidia0", f"{dev}/nvidia1"]
    assert gpus.device_nodes([1], dev) == [f"{dev}/nvidiactl", f"{dev}/nvidia-uvm", f"{dev}/nvidia1"]
    with pytest.raises(ExecutionError, match=r"names GPU 3 but only .*nvidia\{0,1\} exist"):
        gpus.device_nodes([0, 3], dev)


def test_gpus_where_there_is_none_is_one_line_when_the_executor_is_built(tmp_path):
    if gpus.cards():
        pytest.skip("this machine has NVIDIA devices")
    from ragcode.execution.local import LocalExecutor

    with pytest.raises(ExecutionError) as err:
        LocalExecutor(ExecutionConfig(gpus=["all"]))
    assert "no /dev/nvidia* device" in str(err.value) and "execution.gpus=[]" in str(err.value)
    assert "\n" not in str(err.value)
    assert gpus.device_nodes([]) == []  # the default asks for nothing and works anywhere


def test_cuda_visible_devices_names_the_chosen_gpus(tmp_path, monkeypatch):
    dev = fake_dev(tmp_path, cards=(0, 1, 2))
    env = {"CUDA_VISIBLE_DEVICES": ""}
    gpus.set_visible(env, [2, 0], dev)
    assert env["CUDA_VISIBLE_DEVICES"] == "0,2"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    env = {"CUDA_VISIBLE_DEVICES": ""}
    gpus.set_visible(env, ["all"], dev)
    assert "CUDA_VISIBLE_DEVICES" not in env  # all: nothing hidden
    env = {"CUDA_VISIBLE_DEVICES": ""}
    gpus.set_visible(env, [], dev)
    assert env == {"CUDA_VISIBLE_DEVICES": ""}  # none: as before, hidden


def test_view_binds_the_device_nodes_over_its_minimal_dev():
    argv = View("/usr/bin/python3", devices=["/dev/nvidiactl", "/dev/nvidia0"]).argv(["true"])
    at = argv.index("--dev")
    binds = [argv[i + 1] for i, a in enumerate(argv) if a == "--dev-bind"]
    assert binds == ["/dev/nvidiactl", "/dev/nvidia0"] and argv.index("--dev-bind") > at
    assert "--dev-bind" not in View("/usr/bin/python3").argv(["true"])


def test_a_bound_device_node_is_usable_inside_the_sandbox(tmp_path):
    from ragcode.execution.bwrap import bwrap_works
    from ragcode.execution.local import LocalExecutor

    if not bwrap_works() or not Path("/dev/fuse").exists():
        pytest.skip("needs bubblewrap and /dev/fuse")
    repo = make_repo(tmp_path)
    ex = LocalExecutor(ExecutionConfig(isolation="bwrap", timeout_s=20))
    spec = ExecSpec(code="test -c /dev/fuse", mode="bash", repo_dir=repo, timeout_s=20)
    assert ex.run(spec).exit_code == 1  # not in the sandbox's own /dev
    ex.gpu_nodes = ["/dev/fuse"]  # what execution.gpus puts here: /dev/nvidia* nodes
    result = ex.run(spec)
    assert result.exit_code == 0, result


def test_docker_asks_the_engine_for_the_gpus(tmp_path):
    pytest.importorskip("docker")
    from ragcode.execution.docker_exec import DockerExecutor

    repo = make_repo(tmp_path)
    kwargs = DockerExecutor(ExecutionConfig(executor="docker", gpus=[1, 0]))._create_kwargs(repo)
    (req,) = kwargs["device_requests"]
    assert req["DeviceIDs"] == ["0", "1"] and req["Capabilities"] == [["gpu"]]
    (req,) = DockerExecutor(ExecutionConfig(gpus=["all"]))._create_kwargs(repo)["device_requests"]
    assert req["Count"] == -1
    assert DockerExecutor(ExecutionConfig())._create_kwargs(repo)["device_requests"] == []
    assert "gpus(all)" in DockerExecutor(ExecutionConfig(gpus=["all"])).isolation()
