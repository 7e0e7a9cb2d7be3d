"""A local Ray instance (`executor=ray` without `RI_RAY_ADDRESS`) is reachable from this machine only: every listening
TCP socket of every Ray process of a run (GCS, raylet, autoscaler monitor, runtime-env agent, the actors, the Ray Data
workers, the driver) is on the loopback interface, the executor says so in one line, and it never joins a cluster
that `RAY_ADDRESS` names. Each run is a subprocess (its own Ray instance, started and stopped there)."""
import ipaddress
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]   # a local Ray cluster: make test-integration
MESSAGE = "Ray: local instance on 127.0.0.1 (no remote access); set RI_RAY_ADDRESS to join a cluster"


def _loopback(host):
    ip = ipaddress.ip_address(host.split("%")[0])
    return ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback)

# the run: both engines on one local instance, then every listening TCP socket of the driver and its descendants
# (Ray starts the GCS, raylet and monitor from the driver; the raylet starts the agents and the workers)
PROBE = r"""
import json, time, psutil
from reasoning_integrity.core.executor import RayExecutor, map_items
ex = RayExecutor(num_workers=2, num_cpus=2)
assert map_items(abs, [-1, 2, -3], ex) == [1, 2, 3]
assert map_items(abs, [-4, 5], RayExecutor(num_workers=1, engine="data")) == [4, 5]
time.sleep(2)   # agents that start after the first task have bound their ports
me = psutil.Process()
rows = []
for p in [me, *me.children(recursive=True)]:
    try:
        conns = (p.net_connections if hasattr(p, "net_connections") else p.connections)(kind="tcp")
        name = p.name()
    except psutil.Error:
        continue
    rows += [dict(pid=p.pid, name=name, ip=c.laddr.ip, port=c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN]
print("LISTEN " + json.dumps(rows), flush=True)
import ray; ray.shutdown()
"""


def _run(code, **env):
    e = {k: v for k, v in os.environ.items() if k not in ("RI_RAY_ADDRESS", "RI_EXECUTOR", "RAY_ADDRESS")}
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, env=e)


def test_local_ray_listens_on_loopback_only():
    r = _run(PROBE)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = json.loads(next(l for l in r.stdout.splitlines() if l.startswith("LISTEN "))[len("LISTEN "):])
    names = {x["name"] for x in rows}
    assert {"gcs_server", "raylet"} <= names, names          # the servers were found (not an empty, vacuous list)
    assert len(rows) >= 6, rows
    exposed = [x for x in rows if not _loopback(x["ip"])]
    assert not exposed, exposed
    assert MESSAGE in r.stderr                     # and it said so


def test_local_ray_ignores_ray_address():
    # RAY_ADDRESS names a cluster (nothing listens there): a local executor starts its own instance instead of joining
    code = ("from reasoning_integrity.core.executor import RayExecutor, map_items\n"
            "import ray\n"
            "ex = RayExecutor(num_workers=1, num_cpus=1)\n"
            "assert ex.address is None and map_items(abs, [-2], ex) == [2]\n"
            "print('NODE', ray.util.get_node_ip_address()); ray.shutdown()\n")
    r = _run(code, RAY_ADDRESS="127.0.0.1:9")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "NODE 127.0.0.1" in r.stdout, r.stdout
