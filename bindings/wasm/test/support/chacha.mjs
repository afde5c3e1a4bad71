// The keystream of rand's ChaCha12Rng (`from_seed(seed)`: key = seed, 64-bit block counter from
// 0, stream 0; words serialized little-endian), written from RFC 8439 §2.3 with 12 rounds, so
// the memory scans know what the per-call generator produced without asking the module (which
// would leave copies of it). The scans' controls find these bytes in linear memory, which also
// checks this implementation.
const rotl = (x, n) => ((x << n) | (x >>> (32 - n))) >>> 0;

function block(key, counter) {
  const s = new Uint32Array(16);
  s.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
  s.set(key, 4);
  s[12] = counter >>> 0;
  s[13] = Math.floor(counter / 2 ** 32);
  const x = Uint32Array.from(s);
  const qr = (a, b, c, d) => {
    x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 16);
    x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 12);
    x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 8);
    x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 7);
  };
  for (let i = 0; i < 6; i++) {
    qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
    qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) x[i] += s[i];
  return x;
}

/** The first `n` bytes ChaCha12Rng::from_seed(seed) produces. */
export function chacha12(seed, n) {
  const dv = new DataView(seed.buffer, seed.byteOffset, 32);
  const key = Array.from({ length: 8 }, (_, i) => dv.getUint32(4 * i, true));
  const out = new Uint8Array(Math.ceil(n / 64) * 64);
  const odv = new DataView(out.buffer);
  for (let b = 0; b * 64 < n; b++) {
    const x = block(key, b);
    for (let i = 0; i < 16; i++) odv.setUint32(64 * b + 4 * i, x[i], true);
  }
  return out.subarray(0, n);
}
