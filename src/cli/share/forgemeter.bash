# bash completion for forgemeter. The candidates come from the program itself
# (`forgemeter __complete WORD...` walks the same parser --help prints), so
# this file never lists a command or an option of its own.
_forgemeter() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\n'
  local -a said
  said=($("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
  case ${said[0]-} in
    __files__)
      COMPREPLY=($(compgen -f -- "$cur"))
      compopt -o filenames 2>/dev/null || true ;;  # not inside a completion (a test) it fails
    __commands__)
      COMPREPLY=($(compgen -c -- "$cur")) ;;
    *)
      COMPREPLY=("${said[@]}") ;;
  esac
}
complete -F _forgemeter forgemeter
