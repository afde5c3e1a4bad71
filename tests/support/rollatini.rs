//! Rollatini (`Rollatiniv1-P256-SHA256`) vector files: ihat-rs's `key = hex` text layout
//! (`test-vectors/ihat/README.md`), parsed by the ACT runner's parser. Every entry is read,
//! every derived value (intermediate states included) is recomputed byte for byte from the
//! `rand` entries, every message is decoded from the file's bytes and verified, and an entry no
//! step reads fails the file.

use privacy_tokens::rollatini::{
    self, hazmat, AnchorSet, CommitMessage, Endorsement, Moderator, PublicKey, Redemption,
    ResponseMessage,
};

use super::act::{check, parse};
use super::counts::Counts;

/// Whether a text looks like a Rollatini vector file (its `suite.ctx_proto` is
/// `"Rollatiniv1-P256-SHA256"`).
pub fn recognises(text: &str) -> bool {
    text.starts_with("suite.")
        && text.contains("\nsuite.ctx_proto = 526f6c6c6174696e6976312d503235362d534841323536\n")
}

fn e<E: std::fmt::Debug>(what: &str) -> impl Fn(E) -> String + '_ {
    move |err| format!("{what}: {err:?}")
}

/// Replays one file: the suite, `DeriveScalars`, the key, the issuance, each redemption and
/// each permutation vector are one case each.
pub fn run_text(text: &str) -> Result<Counts, String> {
    let file = parse(text)?;
    let mut counts = Counts::default();

    {
        let mut bad = Vec::new();
        check(
            &file,
            "suite.identifier",
            rollatini::IDENTIFIER.as_bytes(),
            &mut bad,
        )?;
        check(
            &file,
            "suite.ctx_proto",
            rollatini::CIPHERSUITE.as_bytes(),
            &mut bad,
        )?;
        counts.record("suite", bad);
    }
    {
        let mut bad = Vec::new();
        let info = file.hex("derive.info")?;
        let d =
            hazmat::derive_scalars(&file.array("derive.rand")?, &info, 3).map_err(e("derive"))?;
        check(&file, "derive.scalars", &d.concat(), &mut bad)?;
        counts.record("derive", bad);
    }

    // Key.
    let anchor = hazmat::generate_key_pair(&file.array("key.rand")?).map_err(e("key"))?;
    let pk = *anchor.public_key();
    {
        let mut bad = Vec::new();
        check(&file, "key.skA", &*anchor.to_bytes(), &mut bad)?;
        check(&file, "key.pkA", &pk.to_bytes(), &mut bad)?;
        check(
            &file,
            "key.P_pkA",
            &pk.vartime_permuted().map_err(e("P"))?.to_bytes(),
            &mut bad,
        )?;
        if PublicKey::from_bytes(&file.hex("key.pkA")?).map_err(e("pkA"))? != pk {
            bad.push("key.pkA decodes to another key".into());
        }
        counts.record("key", bad);
    }

    // Issuance.
    let ctx_iss = file.hex("issue.ctx_iss")?;
    let ctx_red = file.hex("issue.ctx_red")?;
    {
        let mut bad = Vec::new();
        check(
            &file,
            "issue.Z",
            &hazmat::context_base(&ctx_iss).map_err(e("Z"))?,
            &mut bad,
        )?;
        let sid = file.hex("issue.session_id")?;
        let commit = hazmat::commit(&ctx_iss, &sid, &file.array("issue.commit.rand")?)
            .map_err(e("commit"))?;
        check(
            &file,
            "issue.commit.state",
            &hazmat::anchor_state_bytes(&commit.state),
            &mut bad,
        )?;
        check(
            &file,
            "issue.commit.message",
            &commit.message.to_bytes(),
            &mut bad,
        )?;
        let commit_msg = CommitMessage::from_bytes(&file.hex("issue.commit.message")?)
            .map_err(e("commit decode"))?;
        if commit_msg.session_id() != sid {
            bad.push("issue.commit.message: session id".into());
        }
        let ch = hazmat::challenge(
            &pk,
            &ctx_iss,
            &ctx_red,
            &commit_msg,
            &file.array("issue.challenge.rand")?,
        )
        .map_err(e("challenge"))?;
        check(
            &file,
            "issue.challenge.state",
            &hazmat::client_state_bytes(&ch.state),
            &mut bad,
        )?;
        check(
            &file,
            "issue.challenge.message",
            &ch.message.to_bytes(),
            &mut bad,
        )?;
        let ch_msg = rollatini::ChallengeMessage::from_bytes(&file.hex("issue.challenge.message")?)
            .map_err(e("challenge decode"))?;
        let resp = anchor
            .respond(commit.state, &ch_msg)
            .map_err(e("respond"))?;
        check(&file, "issue.response.message", &resp.to_bytes(), &mut bad)?;
        let resp = ResponseMessage::from_bytes(&file.hex("issue.response.message")?)
            .map_err(e("response decode"))?;
        let endorsement = ch
            .state
            .finalize(&pk, &resp)
            .map_err(|r| format!("finalize: {:?}", r.error))?;
        check(
            &file,
            "issue.endorsement",
            &*endorsement.to_bytes(),
            &mut bad,
        )?;
        // Verify the file's Endorsement under pkA.
        let from_file = Endorsement::from_bytes(&file.hex("issue.endorsement")?)
            .map_err(e("endorsement decode"))?;
        let one = AnchorSet::new(&[pk]).map_err(e("set"))?;
        let m = Moderator::new(one, &ctx_iss, &ctx_red).map_err(e("moderator"))?;
        if m.verify(&pk, &from_file).is_err() {
            bad.push("issue.endorsement: Verify failed".into());
        }
        counts.record("issue", bad);
    }

    // Redemptions, in the file's order of set sizes.
    let mut sizes: Vec<u64> = file
        .names()
        .filter_map(|k| {
            k.strip_prefix("redeem")?
                .strip_suffix(".index")?
                .parse()
                .ok()
        })
        .collect();
    sizes.sort_unstable();
    for n in sizes {
        let p = format!("redeem{n}");
        let mut bad = Vec::new();
        let set = AnchorSet::from_bytes(&file.hex(&format!("{p}.anchor_set"))?)
            .map_err(e("anchor set"))?;
        if set.len() as u64 != n {
            bad.push(format!("{p}: {} keys", set.len()));
        }
        let index = u16::try_from(file.int(&format!("{p}.index"))?).map_err(|e| e.to_string())?;
        if set.get(usize::from(index)) != Some(pk) {
            bad.push(format!("{p}.index: not pkA"));
        }
        let digest = file.hex(&format!("{p}.challenge_digest"))?;
        let rand: [u8; 96] = file.array(&format!("{p}.rand"))?;
        let mut delta_seed = [0u8; 48];
        delta_seed.copy_from_slice(&rand[..48]);
        let delta = hazmat::derive_scalars(&delta_seed, b"delta", 1).map_err(e("delta"))?;
        check(&file, &format!("{p}.delta"), &delta.concat(), &mut bad)?;
        let endorsement = Endorsement::from_bytes(&file.hex("issue.endorsement")?)
            .map_err(e("endorsement decode"))?;
        let redemption =
            hazmat::redeem(endorsement, &set, index, &ctx_iss, &ctx_red, &digest, &rand)
                .map_err(|r| format!("redeem: {:?}", r.error))?;
        check(
            &file,
            &format!("{p}.message"),
            &redemption.to_bytes(),
            &mut bad,
        )?;
        let wire = Redemption::from_bytes(&file.hex(&format!("{p}.message"))?, &set)
            .map_err(e("redemption decode"))?;
        let m = Moderator::new(set, &ctx_iss, &ctx_red).map_err(e("moderator"))?;
        let nf = m
            .verify_redemption(&wire, &digest)
            .map_err(e("verify_redemption"))?;
        check(&file, &format!("{p}.nf"), &nf, &mut bad)?;
        counts.record(&p, bad);
    }

    // Permutation vectors.
    let mut i = 0u8;
    while file.has(&format!("perm{i}.point")) {
        let p = format!("perm{i}");
        let mut bad = Vec::new();
        let point =
            rollatini::Anchor::derive(&[i; 48], b"permutation vectors").map_err(e("perm point"))?;
        let point = point.public_key().to_bytes();
        check(&file, &format!("{p}.point"), &point, &mut bad)?;
        let wire = file.hex(&format!("{p}.point"))?;
        check(
            &file,
            &format!("{p}.P"),
            &hazmat::vartime_permute(&wire, false).map_err(e("P"))?,
            &mut bad,
        )?;
        check(
            &file,
            &format!("{p}.Pinv"),
            &hazmat::vartime_permute(&wire, true).map_err(e("Pinv"))?,
            &mut bad,
        )?;
        counts.record(&p, bad);
        i += 1;
    }

    let unread = file.unread();
    if !unread.is_empty() {
        counts.record("entries", vec![format!("unread entries: {unread:?}")]);
    }
    Ok(counts)
}
