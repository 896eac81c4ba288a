#!/usr/bin/env bash
# Installs the Debian packages AuthPhone needs, only those missing, so a second run costs nothing.
#   scripts/install-system-packages.sh          what building and running need
#   scripts/install-system-packages.sh --test   also what the browser test needs, and PostgreSQL
#                                               (the tests start their own, scripts/lib/postgres.sh)
set -euo pipefail

packages=(pkg-config libsodium-dev libqrencode-dev libsqlite3-dev libzbar-dev libpng-dev libturbojpeg0-dev)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(chromium chromium-driver python3-venv postgresql)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[[ "$(id -u)" -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Debian's postgresql package makes and starts a "main" cluster on port 5432; the tests do not use
# it, and its start can fail the install where 5432 is taken or no init system runs, so a first
# install of ours makes none (pg_createcluster makes one later if wanted).
if [[ " ${missing[*]} " == *" postgresql "* ]]; then
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/authphone.conf >/dev/null
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
