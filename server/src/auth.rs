//! The `PrivateToken` HTTP authentication scheme (RFC 9577 §2.1.2, §2.2.2): parsing the
//! `Authorization` header, writing `WWW-Authenticate` challenges, base64url.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

/// Base64url with padding on output; padding optional on input (RFC 9577 §2.1.2 gives the
/// padded form; tokens are keyed on the decoded bytes, so the choice cannot be replayed).
pub const B64URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Base64url, padded.
pub fn b64url(bytes: &[u8]) -> String {
    B64URL.encode(bytes)
}

/// The longest `Authorization` value read (an ARC token of a 32-bit limit is about 4.6 KB of
/// base64).
pub const MAX_AUTHORIZATION_LEN: usize = 8192;

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

/// The `token` parameter of `Authorization: PrivateToken token=...` (RFC 9577 §2.2.2), decoded.
/// Parameter values may be tokens (with `=` padding, as deployed) or quoted strings; unknown
/// parameters are ignored; parameter names are case-insensitive. `None` for another scheme, a
/// malformed header, a missing token parameter or invalid base64url.
pub fn parse_authorization(value: &[u8]) -> Option<Vec<u8>> {
    parse_authorization_with_extensions(value).map(|(token, _)| token)
}

/// The `token` parameter and, if present, the `extensions` parameter (base64url of an
/// `Extensions` structure, draft-ietf-privacypass-auth-scheme-extensions) of
/// `Authorization: PrivateToken`, decoded; `None` as for [`parse_authorization`], or when
/// `extensions` is not base64url or appears twice.
pub fn parse_authorization_with_extensions(value: &[u8]) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    if value.len() > MAX_AUTHORIZATION_LEN {
        return None;
    }
    let value = std::str::from_utf8(value).ok()?.trim();
    let (scheme, rest) = value.split_once([' ', '\t'])?;
    if !scheme.eq_ignore_ascii_case("PrivateToken") {
        return None;
    }
    let params = parse_params(rest.as_bytes())?;
    let token = &params
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("token"))?
        .1;
    let mut ext = params
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("extensions"));
    let extensions = match (ext.next(), ext.next()) {
        (None, _) => None,
        (Some((_, v)), None) => Some(B64URL.decode(v).ok()?),
        (Some(_), Some(_)) => return None,
    };
    Some((B64URL.decode(token).ok()?, extensions))
}

/// `name = value` pairs separated by commas, values a token (plus `=`, as deployed; RFC 9577
/// values are padded base64url) or a quoted string with `\` escapes.
fn parse_params(s: &[u8]) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\t') {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        if i == s.len() {
            return Some(out);
        }
        let start = i;
        while i < s.len() && is_tchar(s[i]) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let name = String::from_utf8(s[start..i].to_vec()).ok()?;
        skip_ws(&mut i);
        if s.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        skip_ws(&mut i);
        let mut v = Vec::new();
        if s.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match *s.get(i)? {
                    b'"' => {
                        i += 1;
                        break;
                    }
                    b'\\' => {
                        v.push(*s.get(i + 1)?);
                        i += 2;
                    }
                    c => {
                        v.push(c);
                        i += 1;
                    }
                }
            }
        } else {
            while i < s.len() && (is_tchar(s[i]) || s[i] == b'=' || s[i] == b'/') {
                v.push(s[i]);
                i += 1;
            }
            if v.is_empty() {
                return None;
            }
        }
        out.push((name, String::from_utf8(v).ok()?));
        skip_ws(&mut i);
        match s.get(i) {
            None => return Some(out),
            Some(b',') => i += 1,
            Some(_) => return None,
        }
    }
}

/// One `WWW-Authenticate: PrivateToken` challenge (RFC 9577 §2.1.2), values unquoted as
/// deployed clients expect; ARC adds `rate-limit` (draft-ietf-privacypass-arc-protocol).
pub fn www_authenticate(
    challenge: &[u8],
    token_key: &[u8],
    max_age: u64,
    rate_limit: Option<u32>,
) -> String {
    let mut s = format!(
        "PrivateToken challenge={}, token-key={}, max-age={max_age}",
        b64url(challenge),
        b64url(token_key)
    );
    if let Some(l) = rate_limit {
        s.push_str(&format!(", rate-limit={l}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_forms() {
        let t = b64url(&[0xfb; 10]);
        for h in [
            format!("PrivateToken token={t}"),
            format!("privatetoken  token=\"{t}\""),
            format!("PrivateToken realm=\"x, y\", token={t}, extra=1"),
            format!("PrivateToken Token = {t}"),
            format!("PrivateToken token={}", t.trim_end_matches('=')),
        ] {
            assert_eq!(
                parse_authorization(h.as_bytes()),
                Some(vec![0xfb; 10]),
                "{h}"
            );
        }
        for h in [
            "Bearer token=AAAA".to_string(),
            "PrivateToken".into(),
            "PrivateToken token=".into(),
            "PrivateToken token=\"AAAA".into(),
            "PrivateToken other=AAAA".into(),
            "PrivateToken token=AA AA".into(),
            "PrivateToken token=!!!!".into(),
            format!("PrivateToken token={}", "A".repeat(MAX_AUTHORIZATION_LEN)),
        ] {
            assert_eq!(parse_authorization(h.as_bytes()), None, "{h}");
        }
        assert_eq!(parse_authorization(&[0xff, 0xfe]), None);
    }

    #[test]
    fn challenge_header_round_trips_through_the_parser_rules() {
        let h = www_authenticate(&[1, 2, 3], &[4; 49], 60, Some(10));
        assert!(h.starts_with("PrivateToken challenge=AQID, token-key="));
        assert!(h.ends_with(", max-age=60, rate-limit=10"));
        let params = parse_params(&h.as_bytes()["PrivateToken ".len()..]).unwrap();
        assert_eq!(params.len(), 4);
        assert_eq!(B64URL.decode(&params[1].1).unwrap(), vec![4; 49]);
    }
}
