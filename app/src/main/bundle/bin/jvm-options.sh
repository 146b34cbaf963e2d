# shellcheck shell=bash
# Sourced, never run: the checks that the bundle's bin/gpucomm and the checkout's ./gpucomm both
# make before they start a JVM, so that the two refuse the same options with the same words.
# Before sourcing, set jvm_java (the java to ask) and jvm_class_path (the launch's class path).
# Afterwards in_locale and encodings hold the launch's locale and output encodings; an option in
# GPUCOMM_JAVA_OPTS, JDK_JAVA_OPTIONS or JAVA_TOOL_OPTIONS that would end the launch (or the ranks'
# launches, which take all three) has ended this one with exit 2 and one line. Leaves set -f on:
# the options are words, not file patterns.
set -f
# An option after which java prints something and exits 0 (or runs another program) would end
# this launcher "successfully" with nothing run; the ranks' launcher (JvmOptionsCheck) refuses the
# same list, in the same variables.
refuse() {
  echo "gpucomm: $1: $2" >&2
  exit 2
}
for variable in GPUCOMM_JAVA_OPTS JDK_JAVA_OPTIONS JAVA_TOOL_OPTIONS; do
  for option in ${!variable:-}; do
    case "$option" in
      @* | -XX:Flags=* | -XX:VMOptionsFile=*)
        refuse "$variable" "$option reads options from a file, unchecked; give the options themselves"
        ;;
      -XX:AOTMode=create)
        refuse "$variable" "$option would start no gpucomm rank (the JVM would print or run something else); give JVM options only, e.g. -Xmx4g"
        ;;
    esac
    case "${option%%=*}" in
      -version | --version | -fullversion | --full-version | -help | --help | -h | '-?' | -X | \
        --help-extra | --dry-run | --list-modules | -d | --describe-module | --validate-modules | \
        -jar | -m | --module | -Xinternalversion | -Xshare:dump | -Xlog:help | \
        -XX:+PrintFlagsInitial | -XX:+PrintFlagsRanges | -XX:+PrintSharedArchiveAndExit | --source)
        refuse "$variable" "$option would start no gpucomm rank (the JVM would print or run something else); give JVM options only, e.g. -Xmx4g"
        ;;
    esac
  done
done
# A shell or container without a locale (C, POSIX: ASCII) has the JVM read every file name and
# argument as ASCII, so a UTF-8 name (café.yaml) is no path to it. File names are UTF-8 in
# practice: the JVM's character type is C.UTF-8 for its paths (LC_ALL only where LC_ALL is what
# says C), its output staying ASCII as the locale says.
in_locale=()
encodings=""
ctype="${LC_ALL:-${LC_CTYPE:-${LANG:-}}}"
if [ -z "$ctype" ] || [ "$ctype" = C ] || [ "$ctype" = POSIX ]; then
  in_locale=(env "$([ -n "${LC_ALL:-}" ] && echo LC_ALL || echo LC_CTYPE)=C.UTF-8")
  encodings="-Dstdout.encoding=US-ASCII -Dstderr.encoding=US-ASCII"
fi
# An option the JVM does not take (a typo, a heap too small) ends it before main with exit 1 and
# three lines of its own; ask it first, with the launch's own options, so that such an option is a
# one-line usage error like the ones above. The question writes nothing and touches no memory: no
# AOT cache or class-data archive is made or used for it (one is for the launch: -Xshare:off where
# the options name such an archive, which AOTMode may not be given with) and no heap pre-touched.
given=""
for variable in GPUCOMM_JAVA_OPTS JDK_JAVA_OPTIONS JAVA_TOOL_OPTIONS; do
  value="${!variable:-}"
  if [ -n "${value//[[:space:]]/}" ]; then
    given="${given:+$given, }$variable"
  fi
done
if [ -n "$given" ]; then
  no_archive=-XX:AOTMode=off
  for option in ${GPUCOMM_JAVA_OPTS:-} ${JDK_JAVA_OPTIONS:-} ${JAVA_TOOL_OPTIONS:-}; do
    case "$option" in
      -Xshare:* | -XX:SharedArchiveFile=* | -XX:SharedClassListFile=* | -XX:DumpLoadedClassList=* | \
        -XX:ArchiveClassesAtExit=* | -XX:+AutoCreateSharedArchive) no_archive=-Xshare:off ;;
    esac
  done
  # shellcheck disable=SC2086 # GPUCOMM_JAVA_OPTS is a list of options
  if ! answer="$(${in_locale[@]+"${in_locale[@]}"} "$jvm_java" --enable-native-access=ALL-UNNAMED \
    $encodings ${GPUCOMM_JAVA_OPTS:-} -cp "$jvm_class_path" -XX:-AlwaysPreTouch $no_archive -version 2>&1)"; then
    # the JVM's own words, some on stdout, without its logging and its closing boilerplate
    why="$(printf '%s\n' "$answer" | awk '
      /^(NOTE: )?Picked up / { next }
      /^Error: Could not create the Java Virtual Machine|^Error: A fatal exception/ { next }
      /^\[/ || /^[[:space:]]*$/ { next }
      n < 3 { printf "%s%s", (n++ ? "; " : ""), $0 }')"
    refuse "$given" "the JVM does not start with these options: ${why:-it exits at once}"
  fi
fi
