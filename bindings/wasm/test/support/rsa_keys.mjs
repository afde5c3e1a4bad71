// Blind RSA keys for the interop tests, the browser test and bench.mjs, moved between this
// package (PKCS#8 / PEM, the RSASSA-PSS SPKI of RFC 9578 §6.5) and WebCrypto (what
// @cloudflare/privacypass-ts and @cloudflare/blindrsa-ts take: RSA-PSS CryptoKeys, SHA-384).
import { readFileSync } from 'node:fs';
import * as pp from '@cloudflare/privacypass-ts';

const RSA_PSS = { name: 'RSA-PSS', hash: 'SHA-384' };

/** The DER of a PEM text (one block). */
export function pemToDer(pem) {
  const b64 = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  return Uint8Array.from(Buffer.from(b64, 'base64'));
}

/**
 * A fresh RSA-2048 key pair (e = 65537) made by privacypass-ts (`Issuer.generateKey`, WebCrypto),
 * and its private key as PKCS#8 DER (WebCrypto's exportKey('pkcs8')) for our BlindRsaIssuer.
 */
export async function generateWebCryptoKey(mode = pp.publicVerif.BlindRSAMode.PSS) {
  const keyPair = await pp.publicVerif.Issuer.generateKey(mode, {
    modulusLength: 2048, publicExponent: Uint8Array.of(1, 0, 1),
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', keyPair.privateKey));
  const tokenKey = await pp.publicVerif.getPublicKeyBytes(keyPair.publicKey);
  return { ...keyPair, pkcs8, tokenKey };
}

/** A PKCS#8 private key (DER) as a WebCrypto RSA-PSS/SHA-384 key pair, both extractable. */
export async function webCryptoKeyPair(pkcs8) {
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, RSA_PSS, true, ['sign']);
  const { n, e } = await crypto.subtle.exportKey('jwk', privateKey);
  const publicKey = await crypto.subtle.importKey('jwk', { kty: 'RSA', n, e, alg: 'PS384', ext: true }, RSA_PSS, true, ['verify']);
  return { privateKey, publicKey };
}

/**
 * The WebCrypto public key of a `token-key` (the RSASSA-PSS SPKI), the way privacypass-ts's
 * client imports it: the algorithm identifier rewritten to rsaEncryption (WebCrypto refuses the
 * id-RSASSA-PSS OID).
 */
export function webCryptoPublicKey(tokenKey) {
  return crypto.subtle.importKey('spki', pp.util.convertRSASSAPSSToEnc(tokenKey), RSA_PSS, true, ['verify']);
}

/**
 * The 0xDA7A key of privacypass-ts's own vector (test-vectors/blind-rsa/
 * privacypass-ts-pub_verif_with_metadata_v3.json): RSA-2048 made of safe primes, which partially
 * blind RSA needs. Its PEM text, DER, and the vector record.
 */
export function da7aVectorKey() {
  const url = new URL('../../../../test-vectors/blind-rsa/privacypass-ts-pub_verif_with_metadata_v3.json', import.meta.url);
  const [v] = JSON.parse(readFileSync(url, 'utf8'));
  const pem = Buffer.from(v.skS, 'hex').toString('utf8');
  return { pem, pkcs8: pemToDer(pem), vector: v };
}
