//! Every routine of the group layer against the `primeorder` reference arithmetic.

#![cfg(test)]
#![allow(clippy::unwrap_used, clippy::eq_op)]

use ::p256::NistP256;
use ::p384::NistP384;
use elliptic_curve::ff::Field;
use elliptic_curve::group::Group as _;

use super::field::TestField;
use super::point::Fe;
use super::*;

type RefPoint<C> = primeorder::ProjectivePoint<C>;

fn to_ref<C: Curve>(p: &Point<C>) -> RefPoint<C> {
    p.to_primeorder()
}

fn ref_mul<C: Curve>(p: &Point<C>, k: &Scalar<C>) -> Point<C> {
    Point::<C>::from_primeorder(&(to_ref(p) * *k))
}

fn gen<C: Curve>() -> Point<C> {
    Point::<C>::generator()
}

fn edge_scalars<C: Curve>() -> Vec<Scalar<C>> {
    let one = Scalar::<C>::ONE;
    let mut v = vec![
        Scalar::<C>::ZERO,
        one,
        one.double(),
        -one,
        -one.double(),
        -one.double() - one,
    ];
    for i in 3u64..40 {
        v.push(Scalar::<C>::from(i));
        v.push(-Scalar::<C>::from(i));
    }
    // Powers of 32 and their neighbours hit the window boundaries of the signed recodings.
    let mut p = Scalar::<C>::from(32u64);
    for _ in 0..80 {
        v.push(p);
        v.push(-p);
        v.push(p - one);
        p *= Scalar::<C>::from(32u64);
    }
    v
}

fn points<C: Curve>(rng: &mut impl rand::CryptoRng) -> Vec<Point<C>> {
    let g = gen::<C>();
    let mut v = vec![g, -g, g.double(), Point::<C>::IDENTITY];
    for _ in 0..3 {
        let k = crate::group::random_scalar::<C>(&mut *rng);
        v.push(ref_mul(&g, &k));
    }
    v
}

fn basic<C: Curve>() {
    let mut rng = rand::rng();
    let g = gen::<C>();
    let rg = RefPoint::<C>::generator();
    assert_eq!(to_ref(&g), rg);
    assert_eq!(to_ref(&g.double()), rg.double());
    assert_eq!(to_ref(&(g + g)), rg.double());
    assert_eq!(to_ref(&(g + g.to_affine())), rg.double());
    assert_eq!(g - g, Point::<C>::IDENTITY);
    assert_eq!(g - g.to_affine(), Point::<C>::IDENTITY);
    assert_eq!(g + Point::<C>::IDENTITY, g);
    assert_eq!(Point::<C>::IDENTITY + g, g);
    assert_eq!(Point::<C>::IDENTITY + g.to_affine(), g);
    assert_eq!(g + Affine::<C>::IDENTITY, g);
    assert!(bool::from(
        (Point::<C>::IDENTITY + Point::<C>::IDENTITY).is_identity()
    ));
    assert!(bool::from(Point::<C>::IDENTITY.double().is_identity()));
    let pts = points::<C>(&mut rng);
    for p in &pts {
        let pa = p.to_affine();
        assert_eq!(to_ref(p).to_affine(), pa.to_primeorder());
        assert_eq!(Point::<C>::from(pa), *p);
        assert_eq!(Affine::<C>::from_primeorder(&pa.to_primeorder()), pa);
        if !bool::from(pa.is_identity()) {
            assert!(bool::from(pa.is_on_curve()));
        }
        for q in &pts {
            let qa = q.to_affine();
            let expect = to_ref(p) + to_ref(q);
            assert_eq!(to_ref(&(p + q)), expect);
            assert_eq!(to_ref(&(p + qa)), expect);
            assert_eq!(to_ref(&p.vartime_add(q)), expect);
            assert_eq!(to_ref(&p.vartime_add_affine(&qa)), expect);
            assert_eq!(to_ref(&(p - q)), to_ref(p) - to_ref(q));
            assert_eq!(to_ref(&(p - qa)), to_ref(p) - to_ref(q));
            assert_eq!(to_ref(&p.vartime_sub_affine(&qa)), to_ref(p) - to_ref(q));
            assert_eq!(*p == *q, to_ref(p) == to_ref(q));
            assert_eq!(pa == qa, to_ref(p) == to_ref(q));
            assert_eq!(
                bool::from(ct_eq_affine::<C>(&pa, &qa)),
                to_ref(p) == to_ref(q)
            );
            // Non-normalized Z.
            let p2 = p.double() - *p;
            assert_eq!(p2, *p);
            assert_eq!(to_ref(&(p2 + q)), expect);
        }
    }
}

fn encodings<C: Curve>(sec1: impl Fn(&primeorder::AffinePoint<C>, bool) -> Vec<u8>) {
    let mut rng = rand::rng();
    for p in points::<C>(&mut rng) {
        let pa = p.to_affine();
        let r = pa.to_primeorder();
        let c = C::encode_compressed(&pa);
        let u = C::encode_uncompressed(&pa);
        if bool::from(pa.is_identity()) {
            assert!(c.as_ref().iter().all(|&b| b == 0));
            assert!(u.as_ref().iter().all(|&b| b == 0));
            assert_eq!(
                C::decode_compressed(c.as_ref()),
                Err(Error::IdentityElement)
            );
            assert_eq!(
                C::decode_uncompressed(u.as_ref()),
                Err(Error::IdentityElement)
            );
            continue;
        }
        assert_eq!(c.as_ref(), sec1(&r, true));
        assert_eq!(u.as_ref(), sec1(&r, false));
        assert_eq!(C::decode_compressed(c.as_ref()), Ok(pa));
        assert_eq!(C::decode_uncompressed(u.as_ref()), Ok(pa));
        let mut bad = u;
        bad.as_mut()[C::UNCOMPRESSED_LEN - 1] ^= 1;
        assert_eq!(
            C::decode_uncompressed(bad.as_ref()),
            Err(Error::InvalidPoint)
        );
        assert_eq!(
            C::decode_compressed(&c.as_ref()[1..]),
            Err(Error::InvalidLength)
        );
    }
}

/// The curve crate's SEC1 decoder (`primeorder::AffinePoint::from_encoded_point`): the reference
/// of the differential decoding test.
type RefDecode<C> = fn(&[u8]) -> Option<primeorder::AffinePoint<C>>;

/// `x + 1` on a big-endian byte string (wrapping).
fn be_increment(x: &mut [u8]) {
    for b in x.iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

/// Our own-field SEC1 decoders against the curve crate's, compressed and uncompressed: valid
/// points with both tags, random `x` (squares and non-squares, both tags), `x = 0`, `x >= p`
/// (`p`, `p + 1`, all ones), random and off-curve `(x, y)`, `y >= p`.
fn decode_differential<C: Curve>(reference: RefDecode<C>)
where
    Fe<C>: TestField,
{
    use rand::Rng as _;
    let mut rng = rand::rng();
    let n = C::SCALAR_LEN;
    let check = |bytes: &[u8]| {
        let ours = if bytes.len() == C::UNCOMPRESSED_LEN {
            C::decode_uncompressed(bytes)
        } else {
            C::decode_compressed(bytes)
        };
        // The curve crate's decoder mapped onto our error types.
        let expect = match reference(bytes) {
            None => Err(Error::InvalidPoint),
            Some(p) if bool::from(p.is_identity()) => Err(Error::IdentityElement),
            Some(p) => Ok(Affine::<C>::from_primeorder(&p)),
        };
        assert_eq!(ours, expect, "{bytes:02x?}");
        if let Ok(p) = ours {
            assert!(bool::from(p.is_on_curve()));
            if bytes.len() == C::COMPRESSED_LEN {
                assert_eq!(p.y.is_odd().unwrap_u8(), bytes[0] & 1, "tag parity");
            }
        }
        ours.is_ok()
    };
    // Valid points (random multiples of the generator), both tags, and their uncompressed form
    // with y and with -y, and with a flipped bit of y (off the curve).
    for _ in 0..64 {
        let k = crate::group::random_scalar::<C>(&mut rng);
        let pa = ref_mul(&gen::<C>(), &k).to_affine();
        if bool::from(pa.is_identity()) {
            continue;
        }
        let mut c = C::encode_compressed(&pa);
        assert!(check(c.as_ref()));
        c.as_mut()[0] ^= 1;
        assert!(check(c.as_ref()));
        assert_eq!(C::decode_compressed(c.as_ref()), Ok(-pa));
        let mut u = C::encode_uncompressed(&pa);
        assert!(check(u.as_ref()));
        u.as_mut()[n + 1..].copy_from_slice((-pa.y).to_repr().as_ref());
        assert!(check(u.as_ref()));
        u.as_mut()[C::UNCOMPRESSED_LEN - 1] ^= 1;
        assert!(!check(u.as_ref()));
    }
    // Random x: about half are abscissae of points; both outcomes must occur.
    let (mut squares, mut non_squares) = (0, 0);
    for _ in 0..256 {
        let x = Fe::<C>::random_fe(&mut rng).to_repr();
        for tag in [2u8, 3] {
            let mut c = vec![tag];
            c.extend_from_slice(x.as_ref());
            if check(&c) {
                squares += 1;
            } else {
                non_squares += 1;
            }
        }
        // Random (x, y): off the curve (except with negligible probability).
        let mut u = vec![4u8];
        u.extend_from_slice(x.as_ref());
        u.extend_from_slice(Fe::<C>::random_fe(&mut rng).to_repr().as_ref());
        check(&u);
    }
    assert!(
        squares > 100 && non_squares > 100,
        "{squares} {non_squares}"
    );
    // x = 0, small x, and x >= p (p, p + 1, p + 2, all ones, random high values).
    let mut p_bytes = (-Fe::<C>::ONE).to_repr();
    be_increment(p_bytes.as_mut());
    let mut xs: Vec<Vec<u8>> = vec![vec![0; n], vec![0xff; n]];
    for i in 1u64..8 {
        xs.push(Fe::<C>::from_small(i).to_repr().as_ref().to_vec());
    }
    let mut x = p_bytes.as_ref().to_vec();
    for _ in 0..3 {
        xs.push(x.clone());
        be_increment(&mut x);
    }
    for _ in 0..16 {
        let mut x = vec![0xff; n];
        rng.fill_bytes(&mut x[n / 2..]);
        xs.push(x);
    }
    let g = Affine::<C>::generator();
    for x in &xs {
        let high = x.as_slice() >= p_bytes.as_ref();
        for tag in [2u8, 3] {
            let mut c = vec![tag];
            c.extend_from_slice(x);
            let ok = check(&c);
            assert!(!(high && ok));
        }
        // x >= p with the generator's y, and the generator's x with y >= p.
        let mut u = vec![4u8];
        u.extend_from_slice(x);
        u.extend_from_slice(g.y.to_repr().as_ref());
        assert!(!(high && check(&u)));
        let mut u = vec![4u8];
        u.extend_from_slice(g.x.to_repr().as_ref());
        u.extend_from_slice(x);
        assert!(!(high && check(&u)));
    }
    // y + p for the generator (same residue, non-canonical) is rejected by both.
    let gy_plus_p = {
        let mut u = C::encode_uncompressed(&g);
        let mut carry = 0u16;
        let y = &mut u.as_mut()[n + 1..];
        for (b, q) in y.iter_mut().rev().zip(p_bytes.as_ref().iter().rev()) {
            let s = u16::from(*b) + u16::from(*q) + carry;
            *b = s as u8;
            carry = s >> 8;
        }
        (u, carry)
    };
    if gy_plus_p.1 == 0 {
        assert!(!check(gy_plus_p.0.as_ref()));
    }
    // Tags other than 2, 3 (compressed) and 4 (uncompressed), and the identity encodings.
    let c = C::encode_compressed(&g);
    let u = C::encode_uncompressed(&g);
    for tag in [0u8, 1, 4, 5, 6, 7, 0x82, 0xff] {
        let mut c = c;
        c.as_mut()[0] = tag;
        assert_eq!(C::decode_compressed(c.as_ref()), Err(Error::InvalidPoint));
    }
    for tag in [0u8, 1, 2, 3, 5, 6, 7, 0x84, 0xff] {
        let mut u = u;
        u.as_mut()[0] = tag;
        assert_eq!(C::decode_uncompressed(u.as_ref()), Err(Error::InvalidPoint));
    }
    assert_eq!(
        C::decode_compressed(&vec![0; n + 1]),
        Err(Error::IdentityElement)
    );
    assert_eq!(
        C::decode_uncompressed(&vec![0; 2 * n + 1]),
        Err(Error::IdentityElement)
    );
    assert_eq!(C::decode_compressed(&vec![0; n]), Err(Error::InvalidLength));
    assert_eq!(
        C::decode_uncompressed(&vec![0; 2 * n]),
        Err(Error::InvalidLength)
    );
    assert_eq!(C::decode_compressed(u.as_ref()), Err(Error::InvalidLength));
    assert_eq!(
        C::decode_uncompressed(c.as_ref()),
        Err(Error::InvalidLength)
    );
}

type RefHash<C> = fn(Xmd, &[&[u8]], &[&[u8]]) -> RefPoint<C>;

/// The curve crate's `hash_from_bytes`: its `hash_to_field` (with `K` set per hash: the
/// crate's own security-level bound refuses SHA-256 on P-384, which `expand_message_xmd` does not
/// depend on), its simplified SWU map on both elements, and the sum (cofactor 1).
pub(crate) fn crate_hash_to_curve<C>(xmd: Xmd, msg: &[&[u8]], dst: &[&[u8]]) -> RefPoint<C>
where
    C: Curve + hash2curve::MapToCurve,
{
    use elliptic_curve::consts::{U16, U24, U32};
    use hash2curve::{hash_to_field, ExpandMsgXmd, MapToCurve};
    type Fe2<C> = <C as MapToCurve>::FieldElement;
    type L<C> = <C as MapToCurve>::Length;
    let [u0, u1] = match xmd {
        Xmd::Sha256 => hash_to_field::<2, ExpandMsgXmd<sha2::Sha256>, U16, Fe2<C>, L<C>>(msg, dst),
        Xmd::Sha384 => hash_to_field::<2, ExpandMsgXmd<sha2::Sha384>, U24, Fe2<C>, L<C>>(msg, dst),
        Xmd::Sha512 => hash_to_field::<2, ExpandMsgXmd<sha2::Sha512>, U32, Fe2<C>, L<C>>(msg, dst),
    }
    .unwrap(); // ok: test-only module (group.rs: `#[cfg(test)] mod tests`), fixed short DSTs
    C::map_to_curve(u0) + C::map_to_curve(u1)
}

fn hash<C: Curve>(reference: RefHash<C>) {
    use rand::{Rng, RngExt};
    let mut rng = rand::rng();
    for i in 0u32..20 {
        let msg = i.to_be_bytes();
        let dst: &[&[u8]] = &[b"QUUX-V01-CS02-with-", b"test"];
        let ours = C::hash_to_curve(Xmd::Sha256, &[&msg, b"x"], dst).unwrap();
        let expect = reference(Xmd::Sha256, &[&msg, b"x"], dst);
        assert_eq!(to_ref(&ours), expect);
        let ours = C::hash_to_curve(Xmd::Sha512, &[&msg], dst).unwrap();
        let expect = reference(Xmd::Sha512, &[&msg], dst);
        assert_eq!(to_ref(&ours), expect);
    }
    // Random messages and DSTs (split in random pieces), every expander.
    for xmd in [Xmd::Sha256, Xmd::Sha384, Xmd::Sha512] {
        for _ in 0..200 {
            let mut msg = vec![0u8; rng.random_range(0..300)];
            rng.fill_bytes(&mut msg);
            let mut dst = vec![0u8; rng.random_range(1..=255)];
            rng.fill_bytes(&mut dst);
            let (m0, m1) = msg.split_at(rng.random_range(0..=msg.len()));
            let (d0, d1) = dst.split_at(rng.random_range(0..=dst.len()));
            let ours = C::hash_to_curve(xmd, &[m0, m1], &[d0, d1]).unwrap();
            assert!(!bool::from(ours.is_identity()));
            assert!(bool::from(ours.to_affine().is_on_curve()));
            assert_eq!(to_ref(&ours), reference(xmd, &[&msg], &[&dst]));
        }
    }
}

/// RFC 9380 Appendix J.1.1 / J.2.1 (`P256_XMD:SHA-256_SSWU_RO_`, `P384_XMD:SHA-384_SSWU_RO_`):
/// `(msg, P.x, P.y)`.
fn hash_vectors<C: Curve>(xmd: Xmd, dst: &[u8], vectors: &[(&[u8], &str, &str)]) {
    for (msg, x, y) in vectors {
        let p = to_affine(&C::hash_to_curve(xmd, &[msg], &[dst]).unwrap());
        let enc = C::encode_uncompressed(&p);
        let expect = hex::decode(std::format!("04{x}{y}")).unwrap();
        assert_eq!(enc.as_ref(), &expect[..], "msg {msg:?}");
    }
}

#[test]
fn hash_to_curve_rfc9380_p256() {
    hash_vectors::<NistP256>(
        Xmd::Sha256,
        b"QUUX-V01-CS02-with-P256_XMD:SHA-256_SSWU_RO_",
        &[
            (
                b"",
                "2c15230b26dbc6fc9a37051158c95b79656e17a1a920b11394ca91c44247d3e4",
                "8a7a74985cc5c776cdfe4b1f19884970453912e9d31528c060be9ab5c43e8415",
            ),
            (
                b"abc",
                "0bb8b87485551aa43ed54f009230450b492fead5f1cc91658775dac4a3388a0f",
                "5c41b3d0731a27a7b14bc0bf0ccded2d8751f83493404c84a88e71ffd424212e",
            ),
            (
                b"abcdef0123456789",
                "65038ac8f2b1def042a5df0b33b1f4eca6bff7cb0f9c6c1526811864e544ed80",
                "cad44d40a656e7aff4002a8de287abc8ae0482b5ae825822bb870d6df9b56ca3",
            ),
        ],
    );
}

#[test]
fn hash_to_curve_rfc9380_p384() {
    hash_vectors::<NistP384>(
        Xmd::Sha384,
        b"QUUX-V01-CS02-with-P384_XMD:SHA-384_SSWU_RO_",
        &[
            (
                b"",
                "eb9fe1b4f4e14e7140803c1d99d0a93cd823d2b024040f9c067a8eca1f5a2eeac9ad604973527a356f3fa3aeff0e4d83",
                "0c21708cff382b7f4643c07b105c2eaec2cead93a917d825601e63c8f21f6abd9abc22c93c2bed6f235954b25048bb1a",
            ),
            (
                b"abc",
                "e02fc1a5f44a7519419dd314e29863f30df55a514da2d655775a81d413003c4d4e7fd59af0826dfaad4200ac6f60abe1",
                "01f638d04d98677d65bef99aef1a12a70a4cbb9270ec55248c04530d8bc1f8f90f8a6a859a7c1f1ddccedf8f96d675f6",
            ),
            (
                b"abcdef0123456789",
                "bdecc1c1d870624965f19505be50459d363c71a699a496ab672f9a5d6b78676400926fbceee6fcd1780fe86e62b2aa89",
                "57cf1f99b5ee00f3c201139b3bfe4dd30a653193778d89a0accc5e0f47e46e4e4b85a0595da29c9494c1814acafe183c",
            ),
        ],
    );
}

fn multiplication<C: Curve>() {
    let mut rng = rand::rng();
    let table = C::generator_table();
    let mut ks = edge_scalars::<C>();
    for _ in 0..10 {
        ks.push(crate::group::random_scalar::<C>(&mut rng));
    }
    let pts = points::<C>(&mut rng);
    let g = gen::<C>();
    for k in &ks {
        let expect = ref_mul(&g, k);
        assert_eq!(mul_generator::<C>(k), expect, "mul_generator {k:?}");
        assert_eq!(table.vartime_mul(k), expect, "vartime generator {k:?}");
        for p in &pts {
            let expect = ref_mul(p, k);
            let pa = p.to_affine();
            assert_eq!(mul::<C>(p, k), expect, "mul {k:?}");
            assert_eq!(mul_affine::<C>(&pa, k), expect, "mul_affine {k:?}");
            assert_eq!(*p * *k, expect);
            assert_eq!(vartime_mul::<C>(&pa, k), expect, "vartime_mul {k:?}");
        }
    }
    // Combinations.
    for (i, a) in ks.iter().enumerate().step_by(7) {
        let b = &ks[(i * 5 + 3) % ks.len()];
        for p in &pts {
            let pa = p.to_affine();
            let expect = ref_mul(&g, a) + ref_mul(p, b);
            assert_eq!(vartime_mul_generator_add::<C>(a, b, &pa), expect);
            assert_eq!(vartime_lincomb::<C, 2>(&[g, *p], &[*a, *b]), expect);
            assert_eq!(
                vartime_lincomb::<C, 2>(&[*p, *p], &[*a, *b]),
                ref_mul(p, &(*a + *b))
            );
            assert_eq!(
                vartime_lincomb::<C, 2>(&[*p, -*p], &[*a, *a]),
                Point::<C>::IDENTITY
            );
        }
    }
}

/// `sum k_i P_i` by the reference arithmetic.
fn ref_msm<C: Curve>(pts: &[Affine<C>], ks: &[Scalar<C>]) -> RefPoint<C> {
    pts.iter()
        .zip(ks.iter())
        .fold(RefPoint::<C>::identity(), |a, (p, k)| {
            a + p.to_primeorder() * *k
        })
}

fn msm<C: Curve>() {
    let mut rng = rand::rng();
    let g = gen::<C>();
    for n in [0usize, 1, 2, 3, 4, 17, 100, 600] {
        let mut pts: Vec<Affine<C>> = (0..n)
            .map(|_| ref_mul(&g, &crate::group::random_scalar::<C>(&mut rng)).to_affine())
            .collect();
        let mut ks: Vec<Scalar<C>> = (0..n)
            .map(|_| crate::group::random_scalar::<C>(&mut rng))
            .collect();
        if n >= 4 {
            // Repeated points, P and -P, the identity, edge scalars.
            pts[1] = pts[0];
            pts[2] = -pts[0];
            pts[3] = Affine::<C>::IDENTITY;
            ks[1] = ks[0];
            ks[0] = -Scalar::<C>::ONE;
            ks[n - 1] = Scalar::<C>::ZERO;
        }
        assert_eq!(
            to_ref(&vartime_msm::<C>(&pts, &ks).unwrap()),
            ref_msm(&pts, &ks),
            "n = {n}"
        );
    }
    // All the same point, and P, -P with equal scalars (the sum is the identity).
    for n in [5usize, 600] {
        let p = ref_mul(&g, &crate::group::random_scalar::<C>(&mut rng)).to_affine();
        let k = crate::group::random_scalar::<C>(&mut rng);
        let pts = vec![p; n];
        let ks = vec![k; n];
        let expect = to_ref(&Point::<C>::from(p)) * (k * Scalar::<C>::from(n as u64));
        assert_eq!(to_ref(&vartime_msm::<C>(&pts, &ks).unwrap()), expect);
        let pts: Vec<Affine<C>> = (0..n).map(|i| if i % 2 == 0 { p } else { -p }).collect();
        let expect = to_ref(&Point::<C>::from(p)) * (k * Scalar::<C>::from((n % 2) as u64));
        assert_eq!(to_ref(&vartime_msm::<C>(&pts, &ks).unwrap()), expect);
    }
}

/// `vartime_msm` with sparse coefficients (`2^j`, small amounts: the short per-point tables)
/// and `vartime_mul_batch` (points used once, twice, three times, unused; the identity; zero,
/// one, minus one and random scalars) against the reference per-term products.
fn batched_vartime<C: Curve>() {
    let mut rng = rand::rng();
    let g = gen::<C>();
    let rnd = |rng: &mut rand::rngs::ThreadRng| crate::group::random_scalar::<C>(rng);
    for n in [3usize, 9, 65, 130] {
        let pts: Vec<Affine<C>> = (0..n)
            .map(|_| ref_mul(&g, &rnd(&mut rng)).to_affine())
            .collect();
        let ks: Vec<Scalar<C>> = (0..n)
            .map(|j| match j % 4 {
                0 => Scalar::<C>::from(1u64 << (j % 64)),
                1 => -Scalar::<C>::from(j as u64 * 12345),
                2 => Scalar::<C>::from(u64::MAX - j as u64),
                _ => rnd(&mut rng),
            })
            .collect();
        assert_eq!(
            to_ref(&vartime_msm::<C>(&pts, &ks).unwrap()),
            ref_msm(&pts, &ks),
            "n = {n}"
        );
    }
    for n in [1usize, 2, 5, 40] {
        let mut pts: Vec<Affine<C>> = (0..n)
            .map(|_| ref_mul(&g, &rnd(&mut rng)).to_affine())
            .collect();
        if n >= 5 {
            pts[n - 2] = Affine::<C>::IDENTITY;
        }
        let one = Scalar::<C>::ONE;
        let mut jobs = Vec::new();
        for i in 0..n {
            // Point i used i % 4 times (unused when 0), with edge and random scalars.
            for u in 0..(i % 4).max(usize::from(n < 3)) {
                let k = match (i + u) % 5 {
                    0 => Scalar::<C>::ZERO,
                    1 => one,
                    2 => -one,
                    3 => Scalar::<C>::from(1u64 << 63) * Scalar::<C>::from(1u64 << 63),
                    _ => rnd(&mut rng),
                };
                jobs.push((i, k));
            }
        }
        let mut out = vec![Point::<C>::IDENTITY; jobs.len()];
        vartime_mul_batch::<C>(&pts, &jobs, &mut out).unwrap();
        for ((i, k), o) in jobs.iter().zip(&out) {
            assert_eq!(
                to_ref(o),
                pts[*i].to_primeorder() * *k,
                "n = {n}, point {i}"
            );
        }
        // Control: a changed scalar gives another product.
        if let Some((i, k)) = jobs
            .iter()
            .find(|(i, k)| *i != n - 2 && !bool::from(k.is_zero()))
        {
            let mut one_out = [Point::<C>::IDENTITY];
            vartime_mul_batch::<C>(&pts, &[(*i, *k + one)], &mut one_out).unwrap();
            assert_ne!(to_ref(&one_out[0]), pts[*i].to_primeorder() * *k);
        }
        // Through the comb (a point used twice): the right products, and a changed scalar gives
        // another product (the control of the comb path, which a single job does not take).
        let k = rnd(&mut rng);
        let mut two = [Point::<C>::IDENTITY; 2];
        vartime_mul_batch::<C>(&pts, &[(0, k), (0, k + one)], &mut two).unwrap();
        assert_eq!(to_ref(&two[0]), pts[0].to_primeorder() * k);
        assert_eq!(to_ref(&two[1]), pts[0].to_primeorder() * (k + one));
        assert_ne!(to_ref(&two[1]), pts[0].to_primeorder() * k);
        // The same point at two indices, and the identity used once.
        let dup = [pts[0], pts[0], Affine::<C>::IDENTITY];
        let mut three = [Point::<C>::IDENTITY; 3];
        vartime_mul_batch::<C>(&dup, &[(0, k), (1, -k), (2, k)], &mut three).unwrap();
        assert_eq!(to_ref(&three[0]), pts[0].to_primeorder() * k);
        assert_eq!(to_ref(&three[1]), pts[0].to_primeorder() * (-k));
        assert!(bool::from(three[2].is_identity()));
        // No job: nothing to do.
        assert_eq!(vartime_mul_batch::<C>(&pts, &[], &mut []), Ok(()));
        // Lengths and indices are checked.
        assert_eq!(
            vartime_mul_batch::<C>(&pts, &[(n, one)], &mut [Point::<C>::IDENTITY]),
            Err(crate::Error::Batch)
        );
        assert_eq!(
            vartime_mul_batch::<C>(&pts, &[(0, one)], &mut []),
            Err(crate::Error::Batch)
        );
    }
}

#[test]
fn batched_vartime_products_match_the_reference() {
    batched_vartime::<NistP256>();
    batched_vartime::<NistP384>();
}

fn normalization<C: Curve>() {
    let mut rng = rand::rng();
    let g = gen::<C>();
    let pts: Vec<Point<C>> = (0..20)
        .map(|i| match i % 7 {
            0 => Point::<C>::IDENTITY,
            // Non-trivial Z.
            _ => g.double() + ref_mul(&g, &crate::group::random_scalar::<C>(&mut rng)),
        })
        .collect();
    for n in 0..pts.len() {
        let mut out = vec![Affine::<C>::generator(); n];
        normalize_slice::<C>(&pts[..n], &mut out).unwrap();
        for (p, a) in pts.iter().zip(out.iter()) {
            assert_eq!(a.to_primeorder(), to_ref(p).to_affine());
        }
    }
    let arr: [Point<C>; 5] = core::array::from_fn(|i| pts[i]);
    let a = normalize_array::<C, 5>(&arr);
    for (p, q) in arr.iter().zip(a.iter()) {
        assert_eq!(q.to_primeorder(), to_ref(p).to_affine());
    }
    let all_identity = [Point::<C>::IDENTITY; 3];
    assert!(normalize_array::<C, 3>(&all_identity)
        .iter()
        .all(|a| bool::from(a.is_identity())));
    let mut out = vec![affine_identity::<C>(); 2];
    assert_eq!(normalize_slice::<C>(&pts[..3], &mut out), Err(Error::Batch));
    assert_eq!(normalize_array::<C, 0>(&[]).len(), 0);
}

#[cfg(feature = "inversion-counter")]
#[test]
fn inversion_counts() {
    let g = gen::<NistP384>();
    let pts = [
        g,
        g.double(),
        Point::<NistP384>::IDENTITY,
        g.double().double(),
    ];
    let before = inversion_count();
    let _ = normalize_array::<NistP384, 4>(&pts);
    assert_eq!(inversion_count() - before, 1);
    let mut out = [affine_identity::<NistP384>(); 4];
    normalize_slice::<NistP384>(&pts, &mut out).unwrap();
    assert_eq!(inversion_count() - before, 2);
    normalize_slice::<NistP384>(&pts[..1], &mut out[..1]).unwrap();
    assert_eq!(inversion_count() - before, 3);
    normalize_slice::<NistP384>(&pts[..0], &mut out[..0]).unwrap();
    assert_eq!(inversion_count() - before, 3);
}

macro_rules! curve_tests {
    ($name:ident, $c:ty) => {
        mod $name {
            use super::*;
            #[test]
            fn basic_arithmetic() {
                basic::<$c>();
            }
            #[test]
            fn sec1_encodings() {
                use elliptic_curve::sec1::ToSec1Point;
                encodings::<$c>(|p, c| p.to_sec1_point(c).as_bytes().to_vec());
            }
            #[test]
            fn sec1_decoding_matches_the_curve_crate() {
                decode_differential::<$c>(|b| {
                    let enc = Sec1Point::<$c>::from_bytes(b).ok()?;
                    primeorder::AffinePoint::<$c>::from_sec1_point(&enc).into_option()
                });
            }
            #[test]
            fn hash_to_curve() {
                hash::<$c>(crate_hash_to_curve::<$c>);
            }
            #[test]
            fn scalar_multiplication() {
                multiplication::<$c>();
            }
            #[test]
            fn multi_scalar_multiplication() {
                msm::<$c>();
            }
            #[test]
            fn batch_normalization() {
                normalization::<$c>();
            }
        }
    };
}

curve_tests!(p256, NistP256);
curve_tests!(p384, NistP384);

#[test]
fn normalize_matches_single() {
    let mut rng = rand::rng();
    let pts: [Point<::p384::NistP384>; 3] = core::array::from_fn(|_| {
        mul_generator::<::p384::NistP384>(&random_scalar::<::p384::NistP384>(&mut rng))
    });
    let a = normalize_array(&pts);
    for (p, q) in pts.iter().zip(a.iter()) {
        assert_eq!(p.to_affine(), *q);
    }
}

#[allow(clippy::unwrap_used)]
mod timing {
    // Quick timings of the group routines on P-384 (`cargo test --release -- --ignored timing --nocapture`).

    use std::time::Instant;

    use crate::group::field::TestField;

    use ::p384::NistP384 as C;

    use elliptic_curve::group::Group as _;

    use super::*;

    fn time<T>(name: &str, iters: u32, mut f: impl FnMut() -> T) {
        let start = Instant::now();
        for _ in 0..iters {
            core::hint::black_box(f());
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(iters);
        std::println!("{name:<36} {us:>10.2} us");
    }

    /// The previous `hash_to_curve` (the curve crate's `osswu`, which inverts, then a square root
    /// for `y`), kept here as the "before" of the timing.
    macro_rules! old_hash_to_curve {
        ($name:ident, $curve:ty, $crate_:ident) => {
            fn $name(msg: &[&[u8]], dst: &[&[u8]]) -> Point<$curve> {
                use elliptic_curve::consts::U16;
                use hash2curve::{hash_to_field, ExpandMsgXmd, MapToCurve};
                use primeorder::osswu::OsswuMap;
                use primeorder::PrimeCurveParams as _;
                type CrateFe = <$curve as MapToCurve>::FieldElement;
                type L = <$curve as MapToCurve>::Length;
                // ok: test-only module (group.rs: `#[cfg(test)] mod tests`), a fixed short DST.
                let u = hash_to_field::<2, ExpandMsgXmd<sha2::Sha256>, U16, CrateFe, L>(msg, dst)
                    .unwrap();
                let mut q = [Affine::<$curve>::IDENTITY; 2];
                for (q, e) in q.iter_mut().zip(u.iter()) {
                    let (x, y_hint) = e.osswu();
                    let rhs = (x.square() - CrateFe::from(3u64)) * x + <$curve>::EQUATION_B;
                    let y = rhs.sqrt().unwrap();
                    let y = CrateFe::conditional_select(&y, &-y, y.is_odd() ^ y_hint.is_odd());
                    *q = Affine::<$curve> {
                        x: TestField::from_crate(&x),
                        y: TestField::from_crate(&y),
                        infinity: 0,
                    };
                }
                Point::<$curve>::from(q[0]) + q[1]
            }
        };
    }
    old_hash_to_curve!(old_hash_to_curve_p256, ::p256::NistP256, p256);
    old_hash_to_curve!(old_hash_to_curve_p384, ::p384::NistP384, p384);

    #[test]
    #[ignore]
    fn timing_hash_to_curve() {
        let msg: &[&[u8]] = &[b"some input of a typical length, thirty-two+ bytes"];
        let dst: &[&[u8]] = &[b"HashToGroup-OPRFV1-\x00-P384-SHA384"];
        let n = 500;
        assert_eq!(
            old_hash_to_curve_p384(msg, dst),
            C::hash_to_curve(Xmd::Sha256, msg, dst).unwrap()
        );
        time("P-384 hash_to_curve before (SHA-256)", n, || {
            old_hash_to_curve_p384(msg, dst)
        });
        time("P-384 hash_to_curve after (SHA-256)", n, || {
            C::hash_to_curve(Xmd::Sha256, msg, dst)
        });
        time("P-384 hash_to_curve after (SHA-384)", n, || {
            C::hash_to_curve(Xmd::Sha384, msg, dst)
        });
        time("P-384 crate hash_from_bytes (SHA-384)", n, || {
            crate_hash_to_curve::<C>(Xmd::Sha384, msg, dst)
        });
        type C256 = ::p256::NistP256;
        time("P-256 hash_to_curve before (SHA-256)", n, || {
            old_hash_to_curve_p256(msg, dst)
        });
        time("P-256 hash_to_curve after (SHA-256)", n, || {
            C256::hash_to_curve(Xmd::Sha256, msg, dst)
        });
        time("P-256 crate hash_from_bytes (SHA-256)", n, || {
            crate_hash_to_curve::<C256>(Xmd::Sha256, msg, dst)
        });
        let mut rng = rand::rng();
        let input = [7u8; 98];
        let server = crate::voprf::OprfServer::<crate::P384Sha384>::new(&mut rng);
        time("P-384 OprfServer::evaluate", n, || server.evaluate(&input));
        let server = crate::voprf::OprfServer::<crate::P256Sha256>::new(&mut rng);
        time("P-256 OprfServer::evaluate", n, || server.evaluate(&input));
        let u = crate::group::P384Fe::random_fe(&mut rng);
        time("P-384 map_to_curve (ours)", n, || {
            sswu::map_to_curve::<C>(&u)
        });
        time("P-384 pow (p-3)/4 (chain)", n, || {
            crate::group::field::pow_p384_c1(&u)
        });
    }

    #[test]
    #[ignore]
    fn timing_p384() {
        let mut rng = rand::rng();
        let k = random_scalar::<C>(&mut rng);
        let p = mul_generator::<C>(&random_scalar::<C>(&mut rng));
        let pa = to_affine::<C>(&p);
        let pts: Vec<Point<C>> = (0..100)
            .map(|_| mul_generator::<C>(&random_scalar::<C>(&mut rng)))
            .collect();
        let mut aff = vec![affine_identity::<C>(); 100];
        normalize_slice::<C>(&pts, &mut aff).unwrap();
        let ks: Vec<Scalar<C>> = (0..100).map(|_| random_scalar::<C>(&mut rng)).collect();
        let n = 200;
        {
            let a = p.x;
            let b = p.y;
            time("field mul x1000", 20, || {
                let mut c = a;
                for _ in 0..1000 {
                    c *= b;
                }
                c
            });
            time("field square x1000", 20, || {
                let mut c = a;
                for _ in 0..1000 {
                    c = c.square();
                }
                c
            });
            time("field add x1000", 20, || {
                let mut c = a;
                for _ in 0..1000 {
                    c += b;
                }
                c
            });
            let a_crate = a.to_crate();
            time("field invert (curve crate)", n, || a_crate.invert());
            let b_crate = b.to_crate();
            time("field mul x1000 (curve crate)", 20, || {
                let mut c = a_crate;
                for _ in 0..1000 {
                    c *= b_crate;
                }
                c
            });
            time("field invert (chain)", n, || {
                crate::group::field::invert_p384(&a)
            });
            let g = Point::<C>::generator();
            let ga = g.to_affine();
            time("double x100", 20, || {
                let mut c = p;
                for _ in 0..100 {
                    c = c.double();
                }
                c
            });
            time("vartime madd x100", 20, || {
                let mut c = p;
                for _ in 0..100 {
                    c = c.vartime_add_affine(&ga);
                }
                c
            });
            time("ct madd x100", 20, || {
                let mut c = p;
                for _ in 0..100 {
                    c = c.add_affine_ct(&ga).0;
                }
                c
            });
            time("ct add x100", 20, || {
                let mut c = p;
                for _ in 0..100 {
                    c = c.add_ct(&g).0;
                }
                c
            });
            let rp = p.to_primeorder();
            let rg = ::p384::AffinePoint::GENERATOR;
            time("primeorder madd x100", 20, || {
                let mut c = rp;
                for _ in 0..100 {
                    c += rg;
                }
                c
            });
            time("primeorder double x100", 20, || {
                let mut c = rp;
                for _ in 0..100 {
                    c = c.double();
                }
                c
            });
        }
        time("primeorder ct mul (reference)", n, || {
            primeorder::ProjectivePoint::<C>::from(::p384::AffinePoint::GENERATOR) * k
        });
        time("mul (ct var-base)", n, || mul::<C>(&p, &k));
        time("mul_affine (ct var-base)", n, || mul_affine::<C>(&pa, &k));
        time("mul_generator (ct)", n, || mul_generator::<C>(&k));
        time("vartime_mul", n, || vartime_mul::<C>(&pa, &k));
        time("vartime_mul_generator_add", n, || {
            vartime_mul_generator_add::<C>(&k, &k, &pa)
        });
        time("vartime_msm 100", 20, || vartime_msm::<C>(&aff, &ks));
        time("to_affine", n, || to_affine::<C>(&p));
        for m in [1usize, 10, 100] {
            let mut out = vec![affine_identity::<C>(); m];
            time(&std::format!("normalize_slice {m}"), 50, || {
                normalize_slice::<C>(&pts[..m], &mut out)
            });
        }
        time("normalize_array 4", 50, || {
            normalize_array::<C, 4>(&[pts[0], pts[1], pts[2], pts[3]])
        });
    }
}

/// decaf448's variable-time products (the windowed `vartime_mul`, the Straus `vartime_msm` and
/// `vartime_lincomb`, `vartime_mul_generator_add`) equal the constant-time ones on random
/// scalars (both signs of every window digit occur) and on 0 and 1; `vartime_msm` refuses
/// slices of different lengths.
#[test]
fn decaf448_vartime_products_equal_the_constant_time_ones() {
    use super::decaf448::{Element, Scalar as DScalar};
    use rand::Rng;
    let mut rng = rand::rng();
    for _ in 0..8 {
        let mut s = || DScalar::random_from(|b| rng.fill_bytes(b));
        let p: [Element; 3] = core::array::from_fn(|_| Element::GENERATOR.mul(&s()));
        let k: [DScalar; 3] = core::array::from_fn(|_| s());
        for (pi, ki) in p.iter().zip(&k) {
            assert!(pi.vartime_mul(ki) == pi.mul(ki));
        }
        let expect = p[0].mul(&k[0]) + p[1].mul(&k[1]) + p[2].mul(&k[2]);
        assert!(Element::vartime_msm(&p, &k).expect("equal lengths") == expect);
        assert!(Element::vartime_lincomb(&p, &k) == expect);
        assert!(Element::lincomb(&p, &k) == expect);
        let mixed = Element::GENERATOR.mul(&k[0]) + p[1].mul(&k[1]);
        assert!(Element::vartime_mul_generator_add(&k[0], &k[1], &p[1]) == mixed);
        assert!(Element::vartime_msm(&p[..2], &k).is_err());
        assert!(p[0].vartime_mul(&DScalar::ZERO) == Element::IDENTITY);
        assert!(p[0].vartime_mul(&DScalar::ONE) == p[0]);
        assert!(Element::mul_generator(&k[0]) == Element::GENERATOR.mul(&k[0]));
        assert!(p[0].double() == p[0] + p[0]);
        let bytes = p[0].to_bytes();
        assert!(Element::from_bytes(&bytes).expect("an encoding") == p[0]);
        assert!(Element::from_bytes_allow_identity(&bytes).expect("an encoding") == p[0]);
        assert!(bytes != Element::IDENTITY.to_bytes());
    }
}

/// `random_scalar` reaches the top of the range: among 64 draws on each curve some have a top
/// byte of 0x80 or more (each does with probability about 1/2).
#[test]
fn random_scalars_reach_the_top_bits() {
    fn top_byte<C: Curve>(rng: &mut impl rand::CryptoRng) -> u8 {
        random_scalar::<C>(rng).to_repr()[0]
    }
    let mut rng = rand::rng();
    assert!((0..64).any(|_| top_byte::<NistP256>(&mut rng) >= 0x80));
    assert!((0..64).any(|_| top_byte::<NistP384>(&mut rng) >= 0x80));
}

/// The batch helpers of the public API: `batch_invert` inverts each scalar (and refuses a zero
/// or a scratch of another length, changing nothing), `mul_batch_affine` equals one `mul` a
/// point (and refuses an output of another length), `normalize_slice` and `normalize_array`
/// equal `to_affine` a point for 0, 1 and 3 points with the identity among them, and
/// `affine_identity`/`is_identity` say what they are.
fn batch_helpers<C: Curve>() {
    let mut rng = rand::rng();
    let xs: Vec<Scalar<C>> = (0..5).map(|_| random_scalar::<C>(&mut rng)).collect();
    let mut v = xs.clone();
    let mut scratch = vec![Scalar::<C>::ZERO; 5];
    batch_invert::<C>(&mut v, &mut scratch).unwrap();
    for (inv, x) in v.iter().zip(&xs) {
        assert_eq!(*inv * x, Scalar::<C>::ONE);
    }
    let mut with_zero = xs.clone();
    with_zero[2] = Scalar::<C>::ZERO;
    let before = with_zero.clone();
    assert!(matches!(
        batch_invert::<C>(&mut with_zero, &mut scratch),
        Err(Error::ZeroScalar)
    ));
    assert_eq!(with_zero, before);
    let mut v = xs.clone();
    assert!(matches!(
        batch_invert::<C>(&mut v, &mut scratch[..4]),
        Err(Error::Batch)
    ));
    assert_eq!(v, xs);

    let k = random_scalar::<C>(&mut rng);
    let pts: Vec<Affine<C>> = (0..3)
        .map(|_| to_affine(&mul_generator::<C>(&random_scalar::<C>(&mut rng))))
        .collect();
    let mut out = vec![Point::<C>::IDENTITY; 3];
    mul_batch_affine::<C>(&pts, &k, &mut out).unwrap();
    for (p, o) in pts.iter().zip(&out) {
        assert_eq!(*o, mul_affine::<C>(p, &k));
    }
    assert!(mul_batch_affine::<C>(&pts, &k, &mut out[..2]).is_err());

    let proj = [
        mul_generator::<C>(&xs[0]),
        Point::<C>::IDENTITY,
        mul_generator::<C>(&xs[1]),
    ];
    let want: Vec<Affine<C>> = proj.iter().map(to_affine).collect();
    for n in [0, 1, 3] {
        let mut got = vec![affine_identity::<C>(); n];
        normalize_slice::<C>(&proj[..n], &mut got).unwrap();
        assert_eq!(got, want[..n]);
    }
    assert_eq!(normalize_array::<C, 3>(&proj).to_vec(), want);
    assert!(normalize_slice::<C>(&proj, &mut [affine_identity::<C>(); 2]).is_err());
    assert_eq!(affine_identity::<C>(), to_affine(&Point::<C>::IDENTITY));
    assert!(is_identity::<C>(&proj[1]));
    assert!(!is_identity::<C>(&proj[0]));
}

#[test]
fn batch_helpers_p256_p384() {
    batch_helpers::<NistP256>();
    batch_helpers::<NistP384>();
}

/// The point type's trait impls that the protocols seldom call: `Neg` on a value and on a
/// reference, `Sum` (empty and not), `identity()`, and a `Debug` that names the coordinates.
fn point_traits<C: Curve>() {
    let mut rng = rand::rng();
    let pts = points::<C>(&mut rng);
    for p in &pts {
        assert_eq!(to_ref(&(-p)), -to_ref(p));
        assert_eq!(to_ref(&(-*p)), -to_ref(p));
        assert!(bool::from((*p + -p).is_identity()));
    }
    let sum: Point<C> = pts.iter().copied().sum();
    let want = pts
        .iter()
        .fold(RefPoint::<C>::identity(), |a, p| a + to_ref(p));
    assert_eq!(to_ref(&sum), want);
    assert!(!bool::from(sum.is_identity()), "a sum of random points");
    let none: Point<C> = core::iter::empty().sum();
    assert!(bool::from(none.is_identity()));
    assert!(bool::from(Point::<C>::identity().is_identity()));
    assert_eq!(Point::<C>::identity(), Point::<C>::IDENTITY);
    let shown = format!("{:?}", gen::<C>());
    for part in ["JacobianPoint {", "x: ", "y: ", "z: "] {
        assert!(shown.contains(part), "{shown}");
    }
}

#[test]
fn point_traits_p256_p384() {
    point_traits::<NistP256>();
    point_traits::<NistP384>();
}

/// decaf448's pieces that the suites reach only through whole protocols: `PrimeGroup`'s
/// identities and `is_identity`, the scalar's `Zeroize`, `expand_message_xof`'s refusals and
/// its oversize-DST rule at the 255-byte edge (against SHAKE256 over RFC 9380 §5.3.2's input,
/// written out here), and `Shake256x64`'s `Debug`, `Reset` and `FixedOutputReset`.
#[test]
fn decaf448_suite_pieces() {
    use super::decaf448::{expand_message_xof, Decaf448, Element, Scalar as DScalar, Shake256x64};
    use super::prime::PrimeGroup;
    use rand::Rng;
    use sha2::digest::{Digest, ExtendableOutput, Update as _, XofReader};
    use zeroize::Zeroize;

    assert!(Decaf448::is_identity(&Decaf448::identity()));
    assert!(Decaf448::is_identity(&Decaf448::normal_identity()));
    assert!(!Decaf448::is_identity(&Element::GENERATOR));
    // `Default` is the identity too (so `identity()` as `Default::default()` is the same).
    assert!(Element::default() == Element::IDENTITY);

    let mut rng = rand::rng();
    let mut s = DScalar::random_from(|b| rng.fill_bytes(b));
    assert!(s != DScalar::ZERO);
    s.zeroize();
    assert!(s == DScalar::ZERO);

    let shake = |parts: &[&[u8]], n: usize| {
        let mut h = shake::Shake256::default();
        for p in parts {
            h.update(p);
        }
        let mut out = vec![0u8; n];
        h.finalize_xof().read(&mut out);
        out
    };
    let msg: &[u8] = b"msg";
    let mut out = [0u8; 40];
    let len = 40u16.to_be_bytes();
    for dst_len in [1usize, 255, 256, 300] {
        let dst = vec![0x5au8; dst_len];
        // A DST given in two pieces is their concatenation.
        let (d1, d2) = dst.split_at(dst_len / 2);
        assert_eq!(expand_message_xof(&[msg], &[d1, d2], &mut out), Ok(()));
        let want = if dst_len <= 255 {
            shake(&[msg, &len, &dst, &[dst_len as u8]], 40)
        } else {
            let short = shake(&[b"H2C-OVERSIZE-DST-", &dst], 56);
            shake(&[msg, &len, &short, &[56]], 40)
        };
        assert_eq!(out.to_vec(), want, "DST of {dst_len} bytes");
    }
    let dst: &[u8] = b"DST";
    assert_eq!(
        expand_message_xof(&[msg], &[dst], &mut []),
        Err(Error::HashToCurve)
    );
    assert_eq!(
        expand_message_xof(&[msg], &[], &mut out),
        Err(Error::HashToCurve)
    );
    assert_eq!(
        expand_message_xof(&[msg], &[dst], &mut vec![0u8; 65536]),
        Err(Error::HashToCurve)
    );

    assert_eq!(
        format!("{:?}", Shake256x64::default()),
        "Shake256x64 { .. }"
    );
    let mut h = <Shake256x64 as Digest>::new();
    Digest::update(&mut h, b"abc");
    assert_eq!(h.finalize_reset().to_vec(), shake(&[b"abc"], 64));
    assert_eq!(h.clone().finalize().to_vec(), shake(&[], 64), "reset");
    Digest::update(&mut h, b"abc");
    Digest::reset(&mut h);
    assert_eq!(h.finalize().to_vec(), shake(&[], 64), "reset");
}

/// P-521's `random_scalar` draws the whole range: among 64 draws some have a top byte of 0
/// and some of 1 (each about half of them).
#[test]
fn p521_random_scalars_reach_both_top_bytes() {
    use super::prime::PrimeGroup;
    let mut rng = rand::rng();
    let tops: Vec<u8> = (0..64)
        .map(|_| {
            let s = <::p521::NistP521 as PrimeGroup>::random_scalar(&mut rng);
            <::p521::NistP521 as PrimeGroup>::encode_scalar(&s)[0]
        })
        .collect();
    assert!(tops.contains(&0) && tops.contains(&1), "{tops:?}");
    assert!(tops.iter().all(|&t| t <= 1));
    // The curve crate's `Default`s are the identities (so `identity()` and `normal_identity()`
    // as `Default::default()` are the same).
    assert_eq!(
        ::p521::ProjectivePoint::default(),
        ::p521::ProjectivePoint::IDENTITY
    );
    assert_eq!(
        ::p521::AffinePoint::default(),
        ::p521::AffinePoint::IDENTITY
    );
}

/// ristretto255's `batch_invert` refuses a zero among the scalars (changing none) and inverts
/// each otherwise; the curve crate's `Default` is the identity (so `identity()` and
/// `normal_identity()` as `Default::default()` are the same).
#[test]
fn ristretto255_batch_invert_and_identity() {
    use super::prime::PrimeGroup;
    use super::ristretto255::Ristretto255;
    use curve25519_dalek::{RistrettoPoint, Scalar as RScalar};
    let mut rng = rand::rng();
    let xs: Vec<RScalar> = (0..3)
        .map(|_| Ristretto255::random_scalar(&mut rng))
        .collect();
    let mut with_zero = [xs[0], RScalar::ZERO, xs[1]];
    let mut scratch = [RScalar::ZERO; 3];
    assert_eq!(
        Ristretto255::batch_invert(&mut with_zero, &mut scratch),
        Err(Error::ZeroScalar)
    );
    assert_eq!(with_zero, [xs[0], RScalar::ZERO, xs[1]]);
    let mut ys = xs.clone();
    assert_eq!(Ristretto255::batch_invert(&mut ys, &mut scratch), Ok(()));
    for (x, y) in xs.iter().zip(&ys) {
        assert_eq!(x * y, RScalar::ONE);
    }
    assert_eq!(
        Ristretto255::batch_invert(&mut ys, &mut scratch[..2]),
        Err(Error::Batch)
    );
    assert_eq!(RistrettoPoint::default(), Ristretto255::identity());
    assert_eq!(RistrettoPoint::default(), Ristretto255::normal_identity());
}

/// decaf448's element and scalar trait impls that the suites do not reach: `Debug` of both
/// (the element's encoding in hex; the scalar redacted), `&Element * &Scalar`, `Zeroize` of
/// an element (the identity), `Scalar::from(u64)` and `batch_invert` (a zero refused with
/// nothing changed).
#[test]
fn decaf448_element_and_scalar_impls() {
    use super::decaf448::{Element, Scalar as DScalar};
    use rand::Rng;
    use zeroize::Zeroize;
    let mut rng = rand::rng();
    let k = DScalar::random_from(|b| rng.fill_bytes(b));
    let g = Element::GENERATOR;
    let p = g.mul(&k);
    assert!(&g * &k == p);
    let hex: String = p.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(format!("{p:?}"), format!("decaf448::Element({hex})"));
    assert_eq!(format!("{k:?}"), "decaf448::Scalar(..)");
    let mut e = p;
    e.zeroize();
    assert!(e == Element::IDENTITY);
    assert!(DScalar::from(3u64) == DScalar::ONE + DScalar::ONE + DScalar::ONE);
    assert!(g.mul(&DScalar::from(2u64)) == g + g);
    let mut with_zero = [k, DScalar::ZERO];
    let mut scratch = [DScalar::ZERO; 2];
    assert_eq!(
        DScalar::batch_invert(&mut with_zero, &mut scratch),
        Err(Error::ZeroScalar)
    );
    assert!(with_zero[0] == k && with_zero[1] == DScalar::ZERO);
    let mut one = [k];
    assert_eq!(DScalar::batch_invert(&mut one, &mut scratch[..1]), Ok(()));
    assert!(one[0] * k == DScalar::ONE);
}

/// The P-384 ladders' 16-entry tables (Jacobian in `mul`, affine in the batch ladder) are read
/// by the backend's vector scan wherever it runs, and the scan returns the entry the digit
/// names (the identity for 0). A path that fell back to the portable scan would still be
/// correct but slower: this pins the speed path (two whole-set mutants turned `gather` into
/// `None`).
#[test]
fn p384_ladder_tables_use_the_vector_scan() {
    use super::window::{build_tables, Entry, ENTRIES};
    type C = NistP384;
    let mut rng = rand::rng();
    let p = mul_generator::<C>(&random_scalar::<C>(&mut rng));
    let ([table], exceptional) = build_tables::<C, 1>(&[p]);
    assert!(!bool::from(exceptional));
    let mut affine = [Affine::<C>::IDENTITY; ENTRIES];
    point::batch_normalize(&table, &mut affine);
    #[cfg(target_arch = "x86_64")]
    let vector = adx::avx2().is_some();
    #[cfg(not(target_arch = "x86_64"))]
    let vector = false;
    for abs in 0..=ENTRIES as u8 {
        let (want_j, want_a) = match abs {
            0 => (Point::<C>::IDENTITY, Affine::<C>::IDENTITY),
            a => (table[a as usize - 1], affine[a as usize - 1]),
        };
        let jac = <Point<C> as Entry<C>>::gather(&table, abs);
        let aff = <Affine<C> as Entry<C>>::gather(&affine, abs);
        assert_eq!(
            (jac.is_some(), aff.is_some()),
            (vector, vector),
            "digit {abs}"
        );
        if let Some(j) = jac {
            assert!(
                j.x == want_j.x && j.y == want_j.y && j.z == want_j.z,
                "digit {abs}"
            );
        }
        if let Some(a) = aff {
            assert_eq!(a, want_a, "digit {abs}");
            assert_eq!(a.infinity, want_a.infinity, "digit {abs}");
        }
    }
    // The identity flag comes from the selected entry alone: a table with one identity entry
    // (entry 6, digit 6) gives the identity there and a point at every other digit.
    if vector {
        let mut holed = affine;
        holed[5] = Affine::<C>::IDENTITY;
        for abs in 1..=ENTRIES as u8 {
            let got = <Affine<C> as Entry<C>>::gather(&holed, abs);
            assert_eq!(
                got.map(|a| a.infinity),
                Some(u8::from(abs == 6)),
                "digit {abs}"
            );
        }
    }
}
