/**
 * The FieldLens vendor's Ed25519 public key (SPKI, PEM). Licenses signed with the matching private key
 * verify out of the box; `FIELDLENS_LICENSE_PUBLIC_KEY` replaces it when set (see docs/license.md).
 * Only the public half lives in the repository: the private key is kept by the vendor, offline.
 */
export const VENDOR_LICENSE_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEA///b1AP1/A9Gg9vALoCQbpeUxE0uvONJGOntm0sgIAI=
-----END PUBLIC KEY-----
`;
