#!/usr/bin/env bash
# The smoke test of the image on any cluster (kubectl on PATH, the current kubeconfig), once the images are on
# its nodes: the CRDs and the operator of manifests/, then the KubeVirt resource given, until Available; the
# example VM (manifests/examples/vm-tiny.stored.yaml) until its VMI is Running and its guest's marker line is
# read from the serial console with virtctl-ts; then the VM, its namespace and the KubeVirt resource deleted
# and waited for until gone (the operator and the CRDs stay). Prints how long each step took. On a failure it
# names the step, prints what the cluster shows, removes what it made (not with SMOKE_KEEP=1) and exits 1.
#   e2e/kind/smoke.sh <kubevirt-resource.yaml>      e.g. manifests/examples/kubevirt.yaml
# SMOKE_NAMESPACE: where the VM runs (default kubevirt-ts-smoke; created and deleted here).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/env.sh
source "$repo/scripts/env.sh"

OPERATOR_NAMESPACE=d8-virtualization # where manifests/operator/ installs the operator
VM_FILE=$repo/manifests/examples/vm-tiny.stored.yaml
MARKER=KUBEVIRT-TS-GUEST-READY
NS=${SMOKE_NAMESPACE:-kubevirt-ts-smoke}
GROUP=internal.virtualization.deckhouse.io
KV=internalvirtualizationkubevirts.$GROUP
VM=internalvirtualizationvirtualmachines.$GROUP
VMI=internalvirtualizationvirtualmachineinstances.$GROUP
APPLY=(apply --server-side --force-conflicts --field-manager=kubevirt-ts-smoke)

t0=$SECONDS
step="checking the tools and the cluster"
step_start=$SECONDS
timings=()
kv_ns="" kv_name="" vm_name=""

log() { printf '[smoke] %4ds %s\n' "$((SECONDS - t0))" "$*" >&2; }
fail() {
  log "$*"
  exit 1
}
begin() {
  step=$1
  step_start=$SECONDS
  log "$step"
}
took() {
  timings+=("$(printf '%-62s %5ds' "$step" "$((SECONDS - step_start))")")
  log "done in $((SECONDS - step_start))s"
}

# until_true LIMIT WHAT CMD...: CMD every 2 s until it succeeds; fails naming WHAT after LIMIT seconds.
until_true() {
  local limit=$1 what=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || fail "$what: not within ${limit}s"
    sleep 2
  done
}
gone() {
  local left
  left=$(kubectl get "$@" --ignore-not-found -o name) || return 1
  [ -z "$left" ]
}
vmi_running() {
  local phase
  phase=$(kubectl get "$VMI" "$vm_name" -n "$NS" --ignore-not-found -o jsonpath='{.status.phase}')
  [ "$phase" != Failed ] || fail "the VMI $NS/$vm_name is Failed"
  [ "$phase" = Running ]
}

# One console session after another until the marker shows: virtctl-ts reads its stdin from a FIFO this shell
# holds open, and leaves the console with success when the shell closes it (the end of its stdin).
read_marker() {
  local limit=$1 end=$((SECONDS + $1)) work pid
  work=$(mktemp -d)
  mkfifo "$work/in"
  while [ "$SECONDS" -lt "$end" ]; do
    exec 3<>"$work/in"
    "$repo/bin/virtctl-ts" -n "$NS" console "$vm_name" --timeout 3 <"$work/in" >"$work/out" 2>"$work/err" 3>&- &
    pid=$!
    until grep -qs "$MARKER" "$work/out" || ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do
      sleep 1
    done
    exec 3>&-
    if grep -qs "$MARKER" "$work/out"; then
      wait "$pid" || fail "virtctl-ts console exited with $? once the marker was read"
      log "guest: $(grep -m1 "$MARKER" "$work/out" | tr -d '\r')"
      rm -rf "$work"
      return 0
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    log "virtctl-ts console ended without the marker: $(tail -n 3 "$work/err" | tr '\n' ' ')"
    sleep 2
  done
  rm -rf "$work"
  fail "no $MARKER on the console of $NS/$vm_name within ${limit}s"
}

remove_vm() {
  begin "VM deleted, its VMI and namespace gone"
  kubectl delete "$VM" "$vm_name" -n "$NS" --ignore-not-found --wait=false
  until_true 180 "the VM and VMI $NS/$vm_name to be gone" gone "$VM/$vm_name" "$VMI/$vm_name" -n "$NS"
  kubectl delete namespace "$NS" --ignore-not-found --wait=false
  until_true 120 "namespace $NS to be gone" gone namespace "$NS"
  took
}
remove_kubevirt() {
  begin "KubeVirt resource deleted and gone (the operator uninstalled)"
  kubectl delete "$KV" "$kv_name" -n "$kv_ns" --ignore-not-found --wait=false
  until_true 300 "the KubeVirt resource $kv_ns/$kv_name to be gone" gone "$KV/$kv_name" -n "$kv_ns"
  took
}

diagnostics() {
  local ns p
  log "what the cluster shows:"
  kubectl get "$KV" -A -o jsonpath='{range .items[*]}{.metadata.namespace}/{.metadata.name} phase={.status.phase}{"\n"}{range .status.conditions[*]}  {.type}={.status} {.reason}: {.message}{"\n"}{end}{end}'
  kubectl get "$VM,$VMI" -n "$NS" -o wide
  for ns in "$OPERATOR_NAMESPACE" "$NS"; do
    kubectl get pods -n "$ns" -o wide
    kubectl get events -n "$ns" --sort-by=.lastTimestamp | tail -n 25
    for p in $(kubectl get pods -n "$ns" -o name); do
      kubectl logs -n "$ns" "$p" --all-containers --prefix --tail=25
    done
  done
}

on_exit() {
  local rc=$?
  [ "$rc" != 0 ] || return 0
  set +e
  log "FAILED: $step"
  diagnostics >&2
  if [ "${SMOKE_KEEP:-}" = 1 ]; then
    log "SMOKE_KEEP=1: everything is left as it is"
  else
    [ -z "$vm_name" ] || (remove_vm)
    [ -z "$kv_name" ] || (remove_kubevirt)
  fi
  log "FAILED: $step"
  exit 1
}

if [ $# != 1 ] || [ ! -f "$1" ]; then
  echo "usage: $0 <kubevirt-resource.yaml>" >&2
  exit 2
fi
kv_file=$1
command -v kubectl >/dev/null || fail "kubectl is not on PATH"
[[ "$(node --version 2>/dev/null)" == v24.* ]] || fail "virtctl-ts needs Node 24 on PATH (or in .tools/node)"
kubectl get --raw /readyz >/dev/null || fail "no cluster answers at the current kubeconfig"
trap on_exit EXIT

begin "CRDs and the operator applied, the operator ready"
kubectl "${APPLY[@]}" -f "$repo/manifests/crds/"
kubectl wait --for=condition=Established --timeout=60s -f "$repo/manifests/crds/"
kubectl "${APPLY[@]}" -f "$repo/manifests/operator/"
kubectl rollout status deployment/virt-operator -n "$OPERATOR_NAMESPACE" --timeout=300s
took

begin "KubeVirt resource applied and Available"
kv=$(kubectl "${APPLY[@]}" -f "$kv_file" -o jsonpath='{.metadata.namespace}/{.metadata.name}')
kv_ns=${kv%%/*} kv_name=${kv#*/}
kubectl wait --for=condition=Available --timeout=600s "$KV/$kv_name" -n "$kv_ns"
took

begin "example VM created, its VMI Running"
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl "${APPLY[@]}" -f -
vm_name=$(kubectl "${APPLY[@]}" -f "$VM_FILE" -n "$NS" -o jsonpath='{.metadata.name}')
until_true 300 "the VMI $NS/$vm_name to be Running" vmi_running
took

begin "the guest's marker read on its console (virtctl-ts)"
read_marker 180
took

remove_vm
vm_name=""
remove_kubevirt
kv_name=""

log "passed; timings:"
for line in "${timings[@]}" "$(printf '%-62s %5ds' total "$((SECONDS - t0))")"; do
  printf '[smoke]   %s\n' "$line" >&2
done
