#!/usr/bin/env bash
# Installs the Debian packages AuthPhone needs, only those missing, so a second run costs nothing.
#   scripts/install-system-packages.sh          what building and running need
#   scripts/install-system-packages.sh --test   also what the browser test needs
set -euo pipefail

packages=(pkg-config libsodium-dev libqrencode-dev libsqlite3-dev libzbar-dev libpng-dev libturbojpeg0-dev)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(chromium chromium-driver python3-venv)
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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
