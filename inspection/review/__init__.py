"""The review of art. 221: a submitted inspection of a kind the Prefecto General de Puertos countersigns waits in his
queue (or a named delegate's) with its photos, findings and outcome; the reviewer countersigns it (a drawn signature,
and the certificate issued or confirmed) or returns it to its inspector with a note, every step audited."""
