# shellcheck shell=bash
# pip takes seconds even when all is there, so a venv holding copies of the files it was made
# from (in VENV/made-from), all unchanged, is kept as it is.
#   venv_is_current VENV FILE…; remember_venv_inputs VENV FILE… (once it is made)
venv_is_current() {
  local venv=$1 file
  shift
  for file in "$@"; do cmp -s "$file" "$venv/made-from/${file//\//_}" 2>/dev/null || return 1; done
}
remember_venv_inputs() {
  local venv=$1 file
  shift
  mkdir -p "$venv/made-from"
  for file in "$@"; do cp "$file" "$venv/made-from/${file//\//_}"; done
}
