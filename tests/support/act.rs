//! ACT (`ACTv1-P256-SHA256`) vector files: act-rs's `key = hex` text layout
//! (`test-vectors/act/README.md`). Every entry is read, every derived value is recomputed
//! byte for byte from the `rand` entries, every message is decoded from the file's bytes and
//! verified, and an entry no step reads fails the file.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use privacy_tokens::act::{self, hazmat, ClientSpendState, Credential, CredentialContext};

use super::counts::Counts;

/// A parsed file: entries by name, and the names read so far.
pub struct File {
    entries: BTreeMap<String, String>,
    read: RefCell<BTreeSet<String>>,
}

/// Parses the text layout: `name = value` lines, continuation lines indented by four spaces.
pub fn parse(text: &str) -> Result<File, String> {
    let mut entries = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(cont) = line.strip_prefix("    ") {
            let name = current.as_ref().ok_or("continuation before any entry")?;
            entries
                .get_mut(name)
                .map(|v: &mut String| v.push_str(cont.trim()))
                .ok_or("continuation of an unknown entry")?;
        } else {
            let (name, value) = line
                .split_once(" =")
                .ok_or_else(|| format!("not an entry: {line}"))?;
            if entries
                .insert(name.to_string(), value.trim().to_string())
                .is_some()
            {
                return Err(format!("duplicate entry {name}"));
            }
            current = Some(name.to_string());
        }
    }
    if entries.is_empty() {
        return Err("no entries".into());
    }
    Ok(File {
        entries,
        read: RefCell::new(BTreeSet::new()),
    })
}

/// Whether a text looks like an ACT vector file.
pub fn recognises(text: &str) -> bool {
    text.starts_with("suite.")
        && text.contains("\nkey.rand =")
        && text.lines().any(|l| l.starts_with("suite.L = "))
}

impl File {
    pub fn get(&self, name: &str) -> Result<&str, String> {
        self.read.borrow_mut().insert(name.to_string());
        self.entries
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| format!("missing {name}"))
    }

    pub fn has(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    pub fn hex(&self, name: &str) -> Result<Vec<u8>, String> {
        hex::decode(self.get(name)?).map_err(|e| format!("{name}: {e}"))
    }

    pub fn array<const N: usize>(&self, name: &str) -> Result<[u8; N], String> {
        self.hex(name)?
            .try_into()
            .map_err(|v: Vec<u8>| format!("{name}: {} bytes, expected {N}", v.len()))
    }

    pub fn int(&self, name: &str) -> Result<u64, String> {
        self.get(name)?.parse().map_err(|e| format!("{name}: {e}"))
    }

    /// Every entry name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    pub fn unread(&self) -> Vec<String> {
        let read = self.read.borrow();
        self.entries
            .keys()
            .filter(|k| !read.contains(*k))
            .cloned()
            .collect()
    }
}

/// Compares `got` with the file's `name`.
pub fn check(file: &File, name: &str, got: &[u8], bad: &mut Vec<String>) -> Result<(), String> {
    let want = file.hex(name)?;
    if want != got {
        bad.push(format!("{name}: got {}", hex::encode(got)));
    }
    Ok(())
}

fn e<E: std::fmt::Debug>(what: &str) -> impl Fn(E) -> String + '_ {
    move |err| format!("{what}: {err:?}")
}

/// Replays one file: the suite block (when the file has generators), the key, the issuance and
/// each spend of the chain are one case each.
pub fn run_text(text: &str) -> Result<Counts, String> {
    let file = parse(text)?;
    let mut counts = Counts::default();
    let l = u8::try_from(file.int("suite.L")?).map_err(|e| e.to_string())?;
    let ctx_cred = file.hex("suite.ctx_cred")?;
    let ctx = CredentialContext::new(&ctx_cred, l).map_err(e("context"))?;

    // The suite block of the draft's file.
    if file.has("suite.H1") {
        let mut bad = Vec::new();
        check(
            &file,
            "suite.identifier",
            act::IDENTIFIER.as_bytes(),
            &mut bad,
        )?;
        check(
            &file,
            "suite.ctx_proto",
            act::CIPHERSUITE.as_bytes(),
            &mut bad,
        )?;
        let gens = act::generator_encodings().map_err(e("generators"))?;
        for (i, g) in gens.iter().enumerate() {
            check(&file, &format!("suite.H{}", i + 1), g, &mut bad)?;
        }
        check(&file, "suite.ctx", &ctx.scalar_bytes(), &mut bad)?;
        counts.record("suite", bad);
    }

    // Key.
    let key = hazmat::generate_key_pair(&file.array("key.rand")?).map_err(e("key"))?;
    let pk = *key.public_key();
    {
        let mut bad = Vec::new();
        check(&file, "key.skM", &*key.to_bytes(), &mut bad)?;
        check(&file, "key.pkM", &pk.to_bytes(), &mut bad)?;
        let decoded = act::PublicKey::from_bytes(&file.hex("key.pkM")?).map_err(e("pkM"))?;
        if decoded != pk {
            bad.push("key.pkM decodes to another key".into());
        }
        counts.record("key", bad);
    }

    // Issuance.
    let mut credential: Credential = {
        let mut bad = Vec::new();
        let req =
            hazmat::issue_request(&file.array("issue.request.rand")?).map_err(e("request"))?;
        check(
            &file,
            "issue.request.state",
            &*req.state.to_bytes(),
            &mut bad,
        )?;
        check(
            &file,
            "issue.request.message",
            &req.message.to_bytes(),
            &mut bad,
        )?;
        let message = act::IssueRequest::from_bytes(&file.hex("issue.request.message")?)
            .map_err(e("request decode"))?;
        let c = file.int("issue.response.c")?;
        let resp =
            hazmat::issue_response(&key, &ctx, c, &message, &file.array("issue.response.rand")?)
                .map_err(e("response"))?;
        check(&file, "issue.response.message", &resp.to_bytes(), &mut bad)?;
        let resp = act::IssueResponse::from_bytes(&file.hex("issue.response.message")?)
            .map_err(e("response decode"))?;
        let cred = req
            .state
            .finalize(&ctx, &pk, &resp)
            .map_err(|r| format!("finalize issue: {:?}", r.error))?;
        check(&file, "issue.credential", &*cred.to_bytes(), &mut bad)?;
        counts.record("issue", bad);
        // The chain continues from the file's credential (equal to ours when the case passed).
        Credential::from_bytes(&file.hex("issue.credential")?).map_err(e("credential decode"))?
    };

    // The spends, in order.
    let mut n = 1;
    while file.has(&format!("spend{n}.s")) {
        let p = format!("spend{n}");
        let mut bad = Vec::new();
        let s = file.int(&format!("{p}.s"))?;
        let a = file.int(&format!("{p}.a"))?;
        let ctx_spend = file.hex(&format!("{p}.ctx_spend"))?;
        let spent = hazmat::prove_spend(
            credential,
            &ctx,
            s,
            a,
            &ctx_spend,
            &file.array(&format!("{p}.rand"))?,
        )
        .map_err(e("prove_spend"))?;
        check(
            &file,
            &format!("{p}.state"),
            &*spent.state.to_bytes(),
            &mut bad,
        )?;
        check(
            &file,
            &format!("{p}.message"),
            &spent.message.to_bytes(),
            &mut bad,
        )?;
        let wire = file.hex(&format!("{p}.message"))?;
        if wire.len() != act::Spend::encoded_len_for(l, s, a) {
            bad.push(format!("{p}.message: length {}", wire.len()));
        }
        let message = act::Spend::from_bytes(&wire, l).map_err(e("spend decode"))?;
        let verified = key
            .verify_spend(&ctx, &message, &ctx_spend)
            .map_err(e("verify_spend"))?;
        if verified.nullifier()[..] != wire[..32] {
            bad.push(format!("{p}: nullifier"));
        }
        let t = file.int(&format!("{p}.refund.t"))?;
        let refund = hazmat::issue_refund(
            &key,
            &ctx,
            &verified,
            t,
            &file.array(&format!("{p}.refund.rand"))?,
        )
        .map_err(e("issue_refund"))?;
        check(
            &file,
            &format!("{p}.refund.message"),
            &refund.to_bytes(),
            &mut bad,
        )?;
        let refund = act::Refund::from_bytes(&file.hex(&format!("{p}.refund.message"))?)
            .map_err(e("refund decode"))?;
        let state = ClientSpendState::from_bytes(&file.hex(&format!("{p}.state"))?)
            .map_err(e("state decode"))?;
        let next = state
            .finalize(&ctx, &pk, &refund)
            .map_err(|r| format!("finalize refund: {:?}", r.error))?;
        check(
            &file,
            &format!("{p}.credential"),
            &*next.to_bytes(),
            &mut bad,
        )?;
        counts.record(&p, bad);
        credential = Credential::from_bytes(&file.hex(&format!("{p}.credential"))?)
            .map_err(e("credential decode"))?;
        n += 1;
    }

    let unread = file.unread();
    if !unread.is_empty() {
        counts.record("entries", vec![format!("unread entries: {unread:?}")]);
    }
    Ok(counts)
}
