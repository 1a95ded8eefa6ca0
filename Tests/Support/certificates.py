"""A test certificate authority and the server certificates it signs, made by the real `openssl` (as the Swift tests'
TLSFixture does) in a folder the caller owns and removes. Used by the TLS cases of Tests/Nginx and the viewer's
browser tests: the clients there trust the test authority, never "any certificate", so a certificate the authority
did not sign (or one for another name) must fail them."""
import ipaddress
import os
import subprocess


def _openssl(*arguments):
    result = subprocess.run(["openssl", *arguments], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(arguments)} failed: {result.stderr.strip()}")


def _key_options(kind):
    # EC P-256 by default (fast to make, what the Swift tests use); RSA where a test needs suites that only an RSA
    # key could negotiate (TLS 1.2's plain-RSA key exchange), so that refusing them is the server's choice.
    if kind == "rsa":
        return ["-newkey", "rsa:2048"]
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]


def authority(folder, name):
    """A self-signed certificate authority `NAME.pem` / `NAME.key` in `folder`; returns the certificate's path."""
    cert, key = os.path.join(folder, f"{name}.pem"), os.path.join(folder, f"{name}.key")
    _openssl("req", "-x509", *_key_options("ec"), "-nodes", "-keyout", key, "-out", cert, "-days", "30",
             "-subj", f"/CN=Tiler test authority {name}",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert


def server_certificate(folder, name, signer, hosts, kind="ec"):
    """A server certificate `NAME.pem` / `NAME.key` for `hosts` (DNS names or IP addresses, the first also its common
    name) signed by the authority whose certificate is `signer` (its key beside it). Browsers want what a public CA
    issues: the names in subjectAltName, serverAuth, and a validity well under 398 days. Returns (cert, key)."""
    cert, key = os.path.join(folder, f"{name}.pem"), os.path.join(folder, f"{name}.key")
    csr, extensions = os.path.join(folder, f"{name}.csr"), os.path.join(folder, f"{name}.ext")
    _openssl("req", *_key_options(kind), "-nodes", "-keyout", key, "-out", csr, "-subj", f"/CN={hosts[0]}")
    names = []
    for host in hosts:
        try:
            ipaddress.ip_address(host)
            names.append(f"IP:{host}")
        except ValueError:
            names.append(f"DNS:{host}")
    usage = "digitalSignature,keyEncipherment" if kind == "rsa" else "digitalSignature"
    with open(extensions, "w") as f:
        f.write(f"basicConstraints=critical,CA:FALSE\nkeyUsage=critical,{usage}\nextendedKeyUsage=serverAuth\n"
                f"subjectAltName={','.join(names)}\n")
    _openssl("x509", "-req", "-in", csr, "-CA", signer, "-CAkey", signer[:-len(".pem")] + ".key", "-CAcreateserial",
             "-out", cert, "-days", "30", "-extfile", extensions)
    return cert, key
