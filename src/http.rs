//! The `PrivateToken` HTTP authentication scheme (RFC 9577 §2): challenges read from a
//! `WWW-Authenticate` header, challenges written into one, and the `Authorization` header that
//! carries a token, with the base64url encoding they use.
//!
//! Nothing here is secret (challenges, token keys and tokens travel in the clear), so the code
//! is ordinary, variable-time parsing; it never panics and runs in time linear in its input.
//!
//! ```
//! use privacy_tokens::http;
//!
//! // What `fetch` hands a client: several challenges, other schemes mixed in.
//! let header = "Basic realm=\"x\", PrivateToken challenge=AAEAC2V4YW1wbGUuY29tAAAA, \
//!               token-key=AQID, max-age=10, PrivateToken challenge=\"AAIAAWEAAAA=\"";
//! let challenges = http::parse_www_authenticate(header);
//! assert_eq!(challenges.len(), 2);
//! assert_eq!(challenges[0].token_type(), 1);
//! assert_eq!(challenges[0].token_key.as_deref(), Some(&[1u8, 2, 3][..]));
//! assert_eq!(challenges[0].max_age, Some(10));
//! assert_eq!(challenges[1].token_type(), 2);
//!
//! let auth = http::authorization_header(&[0xfb; 4]);
//! assert_eq!(auth, "PrivateToken token=-_v7-w==");
//! assert_eq!(http::parse_authorization(&auth)?, vec![0xfb; 4]);
//! # Ok::<(), privacy_tokens::Error>(())
//! ```

use zeroize::{Zeroize, Zeroizing};

use crate::{Error, Result};

/// The authentication scheme name (RFC 9577 §2), matched case-insensitively.
pub const SCHEME: &str = "PrivateToken";

/// One `PrivateToken` challenge of a `WWW-Authenticate` header (RFC 9577 §2.1): its parameters,
/// decoded. The challenge bytes are not parsed further here: decode them with the token type's
/// `TokenChallenge::from_bytes` (the first two bytes, [`Self::token_type`], say which).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The `challenge` parameter: a serialized `TokenChallenge`, at least two bytes.
    pub challenge: Vec<u8>,
    /// The `token-key` parameter (the issuer's public key for the token type), when present.
    pub token_key: Option<Vec<u8>>,
    /// The `max-age` parameter in seconds, when present.
    pub max_age: Option<u64>,
    /// The `rate-limit` parameter (ARC, draft-ietf-privacypass-arc-protocol), when present.
    pub rate_limit: Option<u32>,
    /// Every other parameter, in header order, names lower-cased, values unquoted.
    pub other: Vec<(String, String)>,
}

impl Challenge {
    /// The `token_type` of the challenge (its first two bytes, big-endian).
    pub fn token_type(&self) -> u16 {
        match self.challenge.as_slice() {
            [a, b, ..] => u16::from_be_bytes([*a, *b]),
            // `parse_www_authenticate` only returns challenges of two or more bytes.
            _ => 0,
        }
    }
}

/// Every well-formed `PrivateToken` challenge of a `WWW-Authenticate` value, in header order.
///
/// The value may hold several challenges joined by commas (as `fetch`'s `Headers.get` and
/// HTTP/1.1 folding produce), challenges of other schemes (skipped), quoted or unquoted
/// parameter values, padded or unpadded base64url, and unknown parameters (kept in
/// [`Challenge::other`]). A `PrivateToken` challenge whose `challenge` parameter is missing, is
/// not base64url or is shorter than two bytes, or whose `token-key`, `max-age` or `rate-limit`
/// does not decode, is skipped: this function never fails, so a header with other schemes or a
/// broken challenge still yields the usable ones. Unknown token types are returned; the caller
/// decides what it supports.
pub fn parse_www_authenticate(value: &str) -> Vec<Challenge> {
    let mut out = Vec::new();
    for (scheme, params) in parse_challenges(value.as_bytes()) {
        if !scheme.eq_ignore_ascii_case(SCHEME.as_bytes()) {
            continue;
        }
        if let Some(c) = challenge_from_params(params) {
            out.push(c);
        }
    }
    out
}

fn challenge_from_params(params: Vec<(String, String)>) -> Option<Challenge> {
    let mut challenge = None;
    let mut token_key = None;
    let mut max_age = None;
    let mut rate_limit = None;
    let mut other = Vec::new();
    for (name, value) in params {
        match name.as_str() {
            "challenge" if challenge.is_none() => challenge = Some(base64url_decode(&value).ok()?),
            "token-key" if token_key.is_none() => token_key = Some(base64url_decode(&value).ok()?),
            "max-age" if max_age.is_none() => max_age = Some(parse_decimal(&value)?),
            "rate-limit" if rate_limit.is_none() => {
                rate_limit = Some(u32::try_from(parse_decimal(&value)?).ok()?)
            }
            // A repeated known parameter makes the challenge ambiguous; a malformed parameter
            // (`\0`) or a token68 (empty name) is not a `PrivateToken` challenge.
            "challenge" | "token-key" | "max-age" | "rate-limit" | "\0" | "" => return None,
            _ => other.push((name, value)),
        }
    }
    let challenge = challenge?;
    if challenge.len() < 2 {
        return None;
    }
    Some(Challenge {
        challenge,
        token_key,
        max_age,
        rate_limit,
        other,
    })
}

/// `1*DIGIT` as a `u64` (RFC 9111 `delta-seconds` style), no sign, no overflow.
fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 19 || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// One `WWW-Authenticate: PrivateToken` challenge (RFC 9577 §2.1): `challenge`, then
/// `token-key`, `max-age` and `rate-limit` when given, values padded base64url, unquoted (as
/// deployed clients expect).
pub fn www_authenticate(
    challenge: &[u8],
    token_key: Option<&[u8]>,
    max_age: Option<u64>,
    rate_limit: Option<u32>,
) -> String {
    let mut s = String::with_capacity(64 + 2 * challenge.len());
    s.push_str(SCHEME);
    s.push_str(" challenge=");
    s.push_str(&base64url_encode(challenge));
    if let Some(k) = token_key {
        s.push_str(", token-key=");
        s.push_str(&base64url_encode(k));
    }
    if let Some(m) = max_age {
        s.push_str(", max-age=");
        s.push_str(&m.to_string());
    }
    if let Some(l) = rate_limit {
        s.push_str(", rate-limit=");
        s.push_str(&l.to_string());
    }
    s
}

/// `PrivateToken token=<padded base64url of token>` (RFC 9577 §2.2), the `Authorization`
/// header value that redeems a serialized token.
///
/// The value is a bearer secret until the token is spent: it is built in one allocation of its
/// final size (no growing copy is freed behind it), and the caller should wipe it after use
/// (`zeroize::Zeroizing<String>`).
pub fn authorization_header(token: &[u8]) -> String {
    const PREFIX: &str = " token=";
    let mut s = String::with_capacity(SCHEME.len() + PREFIX.len() + token.len().div_ceil(3) * 4);
    s.push_str(SCHEME);
    s.push_str(PREFIX);
    base64url_encode_into(token, &mut s);
    s
}

/// `PrivateToken token=<padded base64url>, extensions=<padded base64url>`: the `Authorization`
/// value that redeems a type 0xDA7A token with its encoded `Extensions`
/// (draft-ietf-privacypass-auth-scheme-extensions). The bytes are written as given; a bearer
/// secret like [`authorization_header`]'s value (one allocation of its final size).
pub fn authorization_header_with_extensions(token: &[u8], extensions: &[u8]) -> String {
    const PREFIX: &str = " token=";
    const EXT: &str = ", extensions=";
    let mut s = String::with_capacity(
        SCHEME.len()
            + PREFIX.len()
            + token.len().div_ceil(3) * 4
            + EXT.len()
            + extensions.len().div_ceil(3) * 4,
    );
    s.push_str(SCHEME);
    s.push_str(PREFIX);
    base64url_encode_into(token, &mut s);
    s.push_str(EXT);
    base64url_encode_into(extensions, &mut s);
    s
}

/// The decoded `token` parameter of an `Authorization: PrivateToken token=...` value
/// (RFC 9577 §2.2.2): scheme and parameter names case-insensitive, the value quoted or not,
/// padded or not, other parameters ignored.
///
/// The token is a bearer secret until it is spent: every copy of the value that the parse
/// makes (parameter strings, the unescaped quoted string) is wiped before it is freed, and the
/// returned bytes are the only one left, for the caller to wipe (`zeroize::Zeroizing`).
///
/// # Errors
/// [`Error::UnsupportedValue`] for another scheme; [`Error::InvalidEncoding`] for a value that
/// does not parse, no or several `token` parameters, or a token that is not canonical
/// base64url.
pub fn parse_authorization(value: &str) -> Result<Vec<u8>> {
    let mut parsed = parse_challenges(value.as_bytes());
    let token = authorization_token(&parsed);
    wipe_parsed(&mut parsed);
    token
}

/// The decoded `token` and, when present, `extensions` parameters of an `Authorization:
/// PrivateToken` value (draft-ietf-privacypass-auth-scheme-extensions: the `Extensions` of a
/// type 0xDA7A token, base64url), with [`parse_authorization`]'s rules and wiping. The
/// extensions' bytes are returned as sent (decode them with
/// `blind_rsa::privacy_pass::Extensions::from_bytes`); `None` when the parameter is absent.
///
/// # Errors
/// [`parse_authorization`]'s, and [`Error::InvalidEncoding`] for several `extensions`
/// parameters, one that is not canonical base64url, or any parameter that does not parse
/// (which [`parse_authorization`] skips: here it could be the extensions).
pub fn parse_authorization_with_extensions(value: &str) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let mut parsed = parse_challenges(value.as_bytes());
    let token = authorization_token(&parsed).and_then(|token| {
        let mut ext = parsed
            .first()
            .into_iter()
            .flat_map(|(_, params)| params.iter())
            .filter(|(k, _)| k == "extensions");
        // Stricter than `parse_authorization`: a parameter that does not parse (marked "\0")
        // could be the extensions themselves, so it is refused rather than skipped.
        let broken = parsed
            .first()
            .is_some_and(|(_, params)| params.iter().any(|(k, _)| k == "\0"));
        let extensions = match (ext.next(), ext.next()) {
            _ if broken => Err(Error::InvalidEncoding),
            (None, _) => Ok(None),
            (Some((_, v)), None) => base64url_decode(v).map(Some),
            (Some(_), Some(_)) => Err(Error::InvalidEncoding),
        };
        match extensions {
            Ok(e) => Ok((token, e)),
            Err(e) => {
                let mut token = token;
                token.zeroize();
                Err(e)
            }
        }
    });
    wipe_parsed(&mut parsed);
    token
}

/// Wipes every string of parsed challenges (an `Authorization` value's token is among them).
fn wipe_parsed(parsed: &mut [(Vec<u8>, Params)]) {
    for (scheme, params) in parsed {
        scheme.zeroize();
        for (name, value) in params {
            name.zeroize();
            value.zeroize();
        }
    }
}

/// [`parse_authorization`] over the parsed challenges, which the caller wipes.
fn authorization_token(parsed: &[(Vec<u8>, Params)]) -> Result<Vec<u8>> {
    let mut challenges = parsed.iter();
    let (scheme, params) = challenges.next().ok_or(Error::InvalidEncoding)?;
    if !scheme.eq_ignore_ascii_case(SCHEME.as_bytes()) {
        return Err(Error::UnsupportedValue);
    }
    if challenges.next().is_some() {
        return Err(Error::InvalidEncoding);
    }
    let mut tokens = params.iter().filter(|(k, _)| k == "token");
    let token = &tokens.next().ok_or(Error::InvalidEncoding)?.1;
    if tokens.next().is_some() {
        return Err(Error::InvalidEncoding);
    }
    base64url_decode(token)
}

// ---------------------------------------------------------------------------------------------
// RFC 9110 §11.6.1 challenges: `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, comma-joined.

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Unquoted parameter values: a token, plus `=` and `/` (padded base64 as deployed).
fn is_value_char(c: u8) -> bool {
    is_tchar(c) || c == b'=' || c == b'/'
}

fn is_token68_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~+/".contains(&c)
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.i += 1;
        }
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &[u8] {
        let start = self.i;
        while self.peek().is_some_and(&f) {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    /// After a parse error: everything up to the next comma outside a quoted string.
    fn skip_item(&mut self) {
        let mut quoted = false;
        while let Some(c) = self.peek() {
            match c {
                b'"' => quoted = !quoted,
                b'\\' if quoted => self.i += 1,
                b',' if !quoted => return,
                _ => {}
            }
            self.i += 1;
        }
    }

    /// A quoted string (the cursor on its opening quote), unescaped; `None` if unterminated.
    /// Allocated once at the most it can hold, so no growing copy of a value (a token, in an
    /// `Authorization` header) is freed behind it; wiped when dropped unreturned.
    fn quoted(&mut self) -> Option<Vec<u8>> {
        self.i += 1;
        let mut v = Zeroizing::new(Vec::with_capacity(self.s.len() - self.i));
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(core::mem::take(&mut *v));
                }
                b'\\' => {
                    v.push(*self.s.get(self.i + 1)?);
                    self.i += 2;
                }
                c => {
                    v.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

type Params = Vec<(String, String)>;

/// The challenges of a header value: scheme and lower-cased parameters. A token68 is kept as a
/// parameter with an empty name; malformed items are skipped up to the next comma. A challenge
/// with a malformed parameter is marked by a parameter named `\0` so that callers drop it.
fn parse_challenges(s: &[u8]) -> Vec<(Vec<u8>, Params)> {
    let mut out: Vec<(Vec<u8>, Params)> = Vec::new();
    let mut c = Cursor { s, i: 0 };
    loop {
        c.skip_ws();
        match c.peek() {
            None => return out,
            Some(b',') => {
                c.i += 1;
                continue;
            }
            Some(_) => {}
        }
        let name = c.take_while(is_tchar).to_vec();
        if name.is_empty() {
            mark_broken(&mut out);
            c.skip_item();
            continue;
        }
        c.skip_ws();
        if c.peek() == Some(b'=') {
            // `name = value`: a parameter of the current challenge.
            c.i += 1;
            c.skip_ws();
            let value = if c.peek() == Some(b'"') {
                c.quoted()
            } else {
                let v = c.take_while(is_value_char).to_vec();
                (!v.is_empty()).then_some(v)
            };
            c.skip_ws();
            let ends = matches!(c.peek(), None | Some(b','));
            match (value, out.last_mut(), ends) {
                (Some(v), Some((_, params)), true) => match String::from_utf8(v) {
                    Ok(v) => params.push((lower(&name), v)),
                    Err(e) => {
                        e.into_bytes().zeroize();
                        params.push(("\0".into(), String::new()));
                    }
                },
                (mut v, Some((_, params)), _) => {
                    v.zeroize();
                    params.push(("\0".into(), String::new()));
                    c.skip_item();
                }
                (mut v, None, _) => {
                    v.zeroize();
                    c.skip_item();
                }
            }
            continue;
        }
        // A new challenge: `scheme`, then maybe a token68 (which ends the challenge).
        out.push((name, Vec::new()));
        let save = c.i;
        let t68 = c.take_while(is_token68_char).len();
        let eq = c.take_while(|b| b == b'=').len();
        c.skip_ws();
        if t68 > 0 && matches!(c.peek(), None | Some(b',')) {
            let v = String::from_utf8_lossy(&s[save..save + t68 + eq]).into_owned();
            if let Some((_, params)) = out.last_mut() {
                params.push((String::new(), v));
            }
        } else {
            c.i = save;
        }
    }
}

fn mark_broken(out: &mut [(Vec<u8>, Params)]) {
    if let Some((_, params)) = out.last_mut() {
        params.push(("\0".into(), String::new()));
    }
}

fn lower(name: &[u8]) -> String {
    // `name` is tchar-only ASCII.
    name.iter()
        .map(|c| char::from(c.to_ascii_lowercase()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// base64url (RFC 4648 §5)

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url (RFC 4648 §5) with `=` padding, the form RFC 9577 gives.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    base64url_encode_into(bytes, &mut s);
    s
}

/// [`base64url_encode`] appended to `s`.
fn base64url_encode_into(bytes: &[u8], s: &mut String) {
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                s.push(char::from(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                s.push('=');
            }
        }
    }
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    } as u32)
}

/// Strict base64url decoding: the URL-safe alphabet only, padding optional but complete when
/// present, no whitespace, and the unused low bits of the last character zero (so each byte
/// string has exactly one accepted unpadded and one padded form).
///
/// # Errors
/// [`Error::InvalidEncoding`].
pub fn base64url_decode(s: &str) -> Result<Vec<u8>> {
    let s = s.as_bytes();
    let body = match s.iter().position(|&c| c == b'=') {
        Some(p) => {
            let pad = &s[p..];
            if !pad.iter().all(|&c| c == b'=') || !s.len().is_multiple_of(4) || pad.len() > 2 {
                return Err(Error::InvalidEncoding);
            }
            &s[..p]
        }
        None => s,
    };
    if body.len() % 4 == 1 {
        return Err(Error::InvalidEncoding);
    }
    // Wiped if the decoding fails part way (what was decoded may be a token's bytes); the
    // capacity is the exact output length, so a success returns it without a copy.
    let mut out = Zeroizing::new(Vec::with_capacity(body.len() * 3 / 4));
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= sextet(c).ok_or(Error::InvalidEncoding)? << (18 - 6 * k);
        }
        let bytes = n.to_be_bytes();
        let len = chunk.len() - 1;
        // Non-canonical: bits set below the last whole byte.
        if len < 3 && (n & (0x00ff_ffff >> (8 * len))) != 0 {
            return Err(Error::InvalidEncoding);
        }
        out.extend_from_slice(&bytes[1..1 + len]);
    }
    Ok(core::mem::take(&mut *out))
}

#[cfg(test)]
mod tests {

    /// The extensions parameter: written after the token, read back (quoted or not, any case);
    /// absent is `None`; twice, or not base64url, is refused; the control: `parse_authorization`
    /// of the same header reads the same token.
    #[test]
    fn authorization_with_extensions() {
        let (token, ext) = (vec![0xDA, 0x7A, 1, 2, 3], vec![0, 3, 0, 1, 0]);
        let h = authorization_header_with_extensions(&token, &ext);
        assert_eq!(h, "PrivateToken token=2noBAgM=, extensions=AAMAAQA=");
        assert_eq!(
            parse_authorization_with_extensions(&h),
            Ok((token.clone(), Some(ext.clone())))
        );
        assert_eq!(parse_authorization(&h), Ok(token.clone()));
        let quoted = "privatetoken Extensions=\"AAMAAQA\", token=\"2noBAgM\"";
        assert_eq!(
            parse_authorization_with_extensions(quoted),
            Ok((token.clone(), Some(ext.clone())))
        );
        let plain = authorization_header(&token);
        assert_eq!(
            parse_authorization_with_extensions(&plain),
            Ok((token.clone(), None))
        );
        // A broken parameter is skipped by the plain parser (the control), refused here.
        let broken = "PrivateToken token=2noBAgM=, extensions=\"AAMAAQA=";
        assert_eq!(parse_authorization(broken), Ok(token.clone()));
        for bad in [
            broken,
            "PrivateToken token=2noBAgM=, foo=bar baz",
            "PrivateToken token=2noBAgM=, extensions=AAMAAQA=, extensions=AA==",
            "PrivateToken token=2noBAgM=, extensions=A",
            "PrivateToken extensions=AAMAAQA=",
        ] {
            assert_eq!(
                parse_authorization_with_extensions(bad),
                Err(Error::InvalidEncoding),
                "{bad}"
            );
        }
    }

    use super::*;

    #[test]
    fn base64url_round_trips_and_is_strict() {
        for n in 0..40usize {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            let padded = base64url_encode(&bytes);
            assert_eq!(padded.len() % 4, 0);
            assert_eq!(base64url_decode(&padded).unwrap(), bytes);
            let unpadded = padded.trim_end_matches('=');
            assert_eq!(base64url_decode(unpadded).unwrap(), bytes);
        }
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8=");
        for bad in [
            "A", "AB=", "AB===", "A=BC", "AB+/", "AB/_", "AB C", "AQ==AQ==", "AB==", "AAB=", "Zg=",
            "Zh", "Zm9=",
        ] {
            assert_eq!(base64url_decode(bad), Err(Error::InvalidEncoding), "{bad}");
        }
        assert_eq!(base64url_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64url_decode("Zg").unwrap(), b"f");
        assert_eq!(base64url_decode("Zm8").unwrap(), b"fo");
        assert_eq!(base64url_decode("").unwrap(), b"");
    }

    fn ch(t: u16) -> String {
        let mut v = t.to_be_bytes().to_vec();
        v.extend_from_slice(&[0, 1, b'a', 0, 0, 0]);
        base64url_encode(&v)
    }

    #[test]
    fn header_forms() {
        let c1 = ch(1);
        let c5 = ch(5);
        let h = format!(
            "Basic realm=\"a, PrivateToken challenge=x\", PrivateToken challenge={c1}, \
             token-key=AQID, max-age=60,PrivateToken  Challenge=\"{}\" , Token-Key=\"AQ\", \
             extra=\"q\\\"v\", rate-limit=7, Negotiate abc==, PrivateToken challenge={}",
            c5.trim_end_matches('='),
            ch(0x1234)
        );
        let cs = parse_www_authenticate(&h);
        assert_eq!(cs.len(), 3, "{cs:?}");
        assert_eq!(cs[0].token_type(), 1);
        assert_eq!(cs[0].token_key.as_deref(), Some(&[1, 2, 3][..]));
        assert_eq!(cs[0].max_age, Some(60));
        assert_eq!(cs[0].rate_limit, None);
        assert_eq!(cs[1].token_type(), 5);
        assert_eq!(cs[1].token_key.as_deref(), Some(&[1][..]));
        assert_eq!(cs[1].rate_limit, Some(7));
        assert_eq!(cs[1].other, vec![("extra".into(), "q\"v".into())]);
        assert_eq!(cs[2].token_type(), 0x1234);
        assert_eq!(cs[2].token_key, None);
    }

    #[test]
    fn broken_challenges_are_skipped_not_fatal() {
        let good = format!("PrivateToken challenge={}", ch(1));
        for bad in [
            "PrivateToken challenge=!!!!".to_string(),
            "PrivateToken challenge=AA".to_string(),
            "PrivateToken token-key=AQID".to_string(),
            format!("PrivateToken challenge={}, max-age=-1", ch(1)),
            format!(
                "PrivateToken challenge={}, max-age=99999999999999999999",
                ch(1)
            ),
            format!("PrivateToken challenge={}, rate-limit=4294967296", ch(1)),
            format!("PrivateToken challenge={}, token-key=A", ch(1)),
            format!("PrivateToken challenge={}, challenge={}", ch(1), ch(1)),
            format!("PrivateToken challenge=\"{}", ch(1)),
            format!("PrivateToken challenge={} junk", ch(1)),
        ] {
            assert!(parse_www_authenticate(&bad).is_empty(), "{bad}");
            let both = format!("{bad}, {good}");
            let got = parse_www_authenticate(&both);
            // An unterminated quote swallows the rest of the header.
            if !bad.contains("=\"") {
                assert_eq!(got.len(), 1, "{both}");
            }
        }
        assert!(parse_www_authenticate("").is_empty());
        assert!(parse_www_authenticate(",,, ,").is_empty());
        assert!(parse_www_authenticate("Bearer").is_empty());
        assert!(parse_www_authenticate("\u{00e9}\u{0000}=\"").is_empty());
    }

    #[test]
    fn written_challenges_parse_back() {
        let c = base64url_decode(&ch(0xE5AC)).unwrap();
        let h = www_authenticate(&c, Some(&[9; 49]), Some(30), Some(10));
        let got = parse_www_authenticate(&format!("{h}, {h}"));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].challenge, c);
        assert_eq!(got[0].token_key.as_deref(), Some(&[9; 49][..]));
        assert_eq!((got[0].max_age, got[0].rate_limit), (Some(30), Some(10)));
        let h = www_authenticate(&c, None, None, None);
        assert_eq!(parse_www_authenticate(&h)[0].token_key, None);
    }

    #[test]
    fn authorization_forms() {
        let t = base64url_encode(&[0xfb; 10]);
        for h in [
            format!("PrivateToken token={t}"),
            format!("privatetoken  token=\"{t}\""),
            format!("PrivateToken realm=\"x, y\", token={t}, extra=1"),
            format!("PrivateToken Token = {t}"),
            format!("PrivateToken token={}", t.trim_end_matches('=')),
        ] {
            assert_eq!(parse_authorization(&h), Ok(vec![0xfb; 10]), "{h}");
        }
        assert_eq!(
            parse_authorization("Bearer token=AAAA"),
            Err(Error::UnsupportedValue)
        );
        for h in [
            "".to_string(),
            "PrivateToken".into(),
            "PrivateToken token=".into(),
            "PrivateToken token=\"AAAA".into(),
            "PrivateToken other=AAAA".into(),
            "PrivateToken token=AA AA".into(),
            "PrivateToken token=!!!!".into(),
            format!("PrivateToken token={t}, token={t}"),
            format!("PrivateToken token={t}, PrivateToken token={t}"),
        ] {
            assert_eq!(parse_authorization(&h), Err(Error::InvalidEncoding), "{h}");
        }
        assert_eq!(
            parse_authorization(&authorization_header(&[1, 2, 3])),
            Ok(vec![1, 2, 3])
        );
    }
}
