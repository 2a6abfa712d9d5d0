"""CI: pip-audit over requirements.lock; fail on a known vulnerability, say so plainly when the data cannot be reached.

pip-audit asks a vulnerability service about each pinned version: PyPI's JSON API, then OSV. A
machine whose package index has no JSON API (every package "not found") or that cannot resolve
OSV's host has audited nothing: that is reported as not audited, not as passed, and does not fail.
"""
import json
import subprocess  # nosec B404: pip-audit with an argument list, no shell
import sys

AUDIT = ["pip-audit", "-r", "requirements.lock", "--no-deps", "--disable-pip", "--progress-spinner", "off",
         "--format", "json"]


def audit(service: str):
    """(dependencies as pip-audit reports them, or None when the service could not be asked at all)."""
    result = subprocess.run([*AUDIT, "--vulnerability-service", service], capture_output=True, text=True,
                            timeout=300)  # nosec B603
    try:
        return json.loads(result.stdout)["dependencies"]
    except (ValueError, KeyError):
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"ci: pip-audit ({service}) failed to run: {last}")
        return None


def main() -> int:
    for service in ("pypi", "osv"):
        dependencies = audit(service)
        if dependencies is None:
            continue
        vulnerable = [d for d in dependencies if d.get("vulns")]
        audited = [d for d in dependencies if "skip_reason" not in d]
        for dependency in vulnerable:
            for vuln in dependency["vulns"]:
                print(f"ci: VULNERABLE {dependency['name']}=={dependency['version']}: {vuln['id']} "
                      f"(fixed in {', '.join(vuln.get('fix_versions') or ['-'])})")
        if vulnerable:
            return 1
        if audited:
            skipped = len(dependencies) - len(audited)
            print(f"ci: pip-audit ({service}): {len(audited)} pinned packages audited, no known vulnerability"
                  + (f"; {skipped} could not be looked up" if skipped else ""))
            return 0
        print(f"ci: pip-audit ({service}): none of the {len(dependencies)} packages could be looked up "
              "(the index here has no vulnerability data)")
    print("ci: pip-audit NOT AUDITED: no vulnerability service is reachable from this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
