//! The wrapper itself against BoringSSL's own known answers (`trust_token_test.cc` key-generation
//! KATs and the recorded PST v1 keys of spec §8), and the BoringSSL-only features (over-message
//! issuance, experiment v1 with its redemption time).

use privacy_tokens_interop::{derive_key_from_secret, generate_key, Client, Issuer, Method};

/// (method, private blob, public blob) of `TRUST_TOKEN_derive_key_from_secret(method, 1, "SEED")`.
const SEED_KATS: &[(Method, &str, &str)] = &[
    (Method::ExperimentV1, KAT_EXP1_PRIV, KAT_EXP1_PUB),
    (
        Method::ExperimentV2Voprf,
        KAT_EXP2_VOPRF_PRIV,
        KAT_EXP2_VOPRF_PUB,
    ),
    (Method::ExperimentV2Pmb, KAT_EXP2_PMB_PRIV, KAT_EXP2_PMB_PUB),
    (Method::PstV1Voprf, KAT_PST1_VOPRF_PRIV, KAT_PST1_VOPRF_PUB),
    (Method::PstV1Pmb, KAT_PST1_PMB_PRIV, KAT_PST1_PMB_PUB),
];

#[test]
fn derive_key_from_secret_matches_known_answers() {
    for &(method, private, public) in SEED_KATS {
        let key = derive_key_from_secret(method, 1, b"SEED").unwrap();
        assert_eq!(hex::encode(&key.private), private, "{}", method.name());
        assert_eq!(hex::encode(&key.public), public, "{}", method.name());
    }
}

#[test]
fn generate_key_lengths() {
    for (method, private, public) in [
        (Method::ExperimentV1, 292, 301),
        (Method::ExperimentV2Voprf, 52, 101),
        (Method::ExperimentV2Pmb, 292, 295),
        (Method::PstV1Voprf, 52, 101),
        (Method::PstV1Pmb, 292, 295),
    ] {
        let key = generate_key(method, 0x0102_0304).unwrap();
        assert_eq!(
            (key.private.len(), key.public.len()),
            (private, public),
            "{}",
            method.name()
        );
        assert_eq!(key.private[..4], [1, 2, 3, 4]);
        assert_eq!(key.public[..4], [1, 2, 3, 4]);
    }
}

#[test]
fn too_many_keys_and_batch_limits() {
    for method in Method::CURRENT {
        let mut client = Client::new(method, 10).unwrap();
        let mut issuer = Issuer::new(method, 10).unwrap();
        for id in 0..method.max_keys() as u32 {
            let key = generate_key(method, id).unwrap();
            assert_eq!(client.add_key(&key.public).unwrap(), id as usize);
            issuer.add_key(&key.private).unwrap();
        }
        let key = generate_key(method, 99).unwrap();
        assert!(client.add_key(&key.public).is_err());
        assert!(issuer.add_key(&key.private).is_err());
        assert!(Client::new(method, 0x1_0000).is_err());
        assert!(Issuer::new(method, 0x1_0000).is_err());
        // The client silently truncates the count to its max batch size.
        assert_eq!(client.begin_issuance(20).unwrap().len(), 2 + 10 * 97);
    }
}

#[test]
fn over_message_round_trip_and_wrong_message() {
    for method in Method::CURRENT {
        let key = generate_key(method, 7).unwrap();
        let mut client = Client::new(method, 10).unwrap();
        client.add_key(&key.public).unwrap();
        let mut issuer = Issuer::new(method, 10).unwrap();
        issuer.add_key(&key.private).unwrap();
        let request = client.begin_issuance_over_message(3, b"message").unwrap();
        let (response, issued) = issuer.issue(&request, 7, 0, 10).unwrap();
        assert_eq!(issued, 3);
        let (index, tokens) = client.finish_issuance(&response).unwrap();
        assert_eq!((index, tokens.len()), (0, 3));
        for token in &tokens {
            let redemption = client.begin_redemption(token, b"data", 0).unwrap();
            let r = issuer.redeem_over_message(&redemption, b"message").unwrap();
            assert_eq!((r.key_id, r.client_data.as_slice()), (7, &b"data"[..]));
            assert!(issuer.redeem_over_message(&redemption, b"massage").is_err());
        }
    }
}

#[test]
fn experiment_v1_round_trip() {
    let method = Method::ExperimentV1;
    for bit in [0, 1] {
        let key = generate_key(method, 9).unwrap();
        let mut client = Client::new(method, 10).unwrap();
        client.add_key(&key.public).unwrap();
        let mut issuer = Issuer::new(method, 10).unwrap();
        issuer.add_key(&key.private).unwrap();
        let request = client.begin_issuance(10).unwrap();
        let (response, issued) = issuer.issue(&request, 9, bit, 10).unwrap();
        assert_eq!(issued, 10);
        let (_, tokens) = client.finish_issuance(&response).unwrap();
        assert_eq!(tokens.len(), 10);
        for token in &tokens {
            let redemption = client.begin_redemption(token, b"data", 13_374_242).unwrap();
            let r = issuer.redeem(&redemption).unwrap();
            assert_eq!((r.key_id, r.private_metadata, r.nonce.len()), (9, bit, 64));
        }
    }
}

#[test]
fn dup_for_testing_finishes_the_same_tokens() {
    for method in Method::CURRENT {
        let key = generate_key(method, 7).unwrap();
        let mut client = Client::new(method, 10).unwrap();
        client.add_key(&key.public).unwrap();
        let mut issuer = Issuer::new(method, 10).unwrap();
        issuer.add_key(&key.private).unwrap();
        let request = client.begin_issuance(2).unwrap();
        let mut dup = client.dup_for_testing().unwrap();
        let (response, _) = issuer.issue(&request, 7, 0, 10).unwrap();
        assert_eq!(
            client.finish_issuance(&response).unwrap(),
            dup.finish_issuance(&response).unwrap()
        );
    }
}

#[test]
fn error_reports_boringssl_reason() {
    let mut client = Client::new(Method::PstV1Voprf, 10).unwrap();
    let err = client.finish_issuance(&[0; 6]).unwrap_err();
    assert_eq!(err.function, "TRUST_TOKEN_CLIENT_finish_issuance");
    assert!(err.reason.contains("INVALID_KEY_ID"), "{err}");
}

// From `trust_token_test.cc` (KeyGenExp1 / KeyGenExp2VOPRF / KeyGenExp2PMB) and, for PST v1, the
// recorded keys of `trust-token-boringssl-pst-v1.json` (spec §8).
const KAT_EXP1_PRIV: &str = "0000000198aa32fc5f8335ea574f9e61486e899d3daa385dd0069662e80bd65f12a4cca9b5201b138c1caf361bab0cc6ac38ae963d149db88df47fe27deb17c2bc63429394e497bf97ea0240acb6a5034c6b4cb88cf4661b4e0245f9cdb60f590921037e921f3f408350e3dc9e6f65c5bd2c7dab7449c8a23cabcb4d6373812bb21e008f00b8d8b45dc43f3da84f4c720e20174bac148fb2a520412bf762256ad641266210c1bc42ac541b7505d653b17b846a7b5b2a346e434b43cc6cdb1d02347fd1e8fd422cd914dbd6f4adb5e4acdd7eb54c3f5924fa04d9b6d2b77df1fa13c04dd5ca3a4ea8dda9fccb06b2de4b2a86bb0d41b63dfb49c8df9a48e5688afc869c795a79c1093353dc3de9937c5b72f7a08a1f076c383c990be44ea4bd411f83a6d3";
const KAT_EXP1_PUB: &str = "000000010061045e066b7bfd5401e0d2b512ce481666b2dffda8387c1f451ab821521725bb0b00d4a1bc28d9083698b217d3b5adb64e035fd3662c581cccc623a4f9a27eb0e4d395416fba234a82932973753885649caa126d7dcd5202919fa9ee4bfd689740dc006104141639f963669403fa0bbfca5a399f275b3f697ac9f7257c849e1d615a2453f24a9de90553fd12012d9a69507482a34573dc34363144070cda13be943765a0ab165290e58a03e598791479d517eed4b8da777603202a7e3b760b23b77277b2eb00610468184d2323f445b8810da45d0b9e08fb45fb9629432fab93044c04b65e27f5396694151db11c7c276fa5190c3012cc777f10a97ce408773cd36fa4f4aff19d141dd002335055006a4796e18b4e4441adb3ea0d0dd5738e62678ab4e75d17a924";
const KAT_EXP2_VOPRF_PRIV: &str = "000000010be2c47392e7f83ebaab85a777d70a02c536fe62a3ca0175c76219c7f030c5146013974f630537927b768e9fd01a7444";
const KAT_EXP2_VOPRF_PUB: &str = "00000001042c9c11c1e552590b6d888b6e28e8c5a3be4818f71d31cfa26e2ad6cb832604bd9367e453f6117d45e9fe273390db1bfc9b314d391f1f8c4306702c84dc2318c76a58cf9ec1faf230ddad6224de11c1ba8dc34ffbe5a5d437ba3b70c0c3ef2043";
const KAT_EXP2_PMB_PRIV: &str = "000000011b74dcf0a9a76cfb41effa6552c9864efb169dea623f47ab1f1b05f24f05fe64b7e8cd2a10faa2483f0e8b9439f1e753e95029e2b70ec094a9d3ef64101d08d060cb6d9768c7049207b22283f7d99b2cf252340c4231474119b9eefc46bd14ce42d743c8323b24eddc69a38e2901beae243914a752e5d5ff9ac41579294c9b4efc61f2126f4fd39628b079f04e6e7d56191bc2d7f93a5806e5eca433141c780c839434225a8e2ea1724a0335fe4692416be64b3ff0e70bb5f3666cc614cfce320a2c28ba4eb9754aa92db08cd06252291f12fdfbd32a360f8932862556b9e73cebb484412ba8f3a53dfe56945b74b35b273fe7cfe4f815952ad25f92b46a89a554bd275eeb43079b2b8b2259134b9c56d863d9e685152c8252408fb1e7560798";
const KAT_EXP2_PMB_PUB: &str = "000000010448b12ddd0332eb93313d5974f0cfaaa5395f53c49498be8f22d730de1eb4f33223900ba6374a4b44b32652937b4ba479e8776a19812add91fb908b24b5be202ee8bcd3836ca8c5a19a5b5e60da452e317f540e1440d24d402e2179fc77ddc72d04fec6e3cf99ef88ab76861614ed7235a705139f2c53d5df66752e68dcd4c40036086db715f7e53259811657aa7206f0add185a004d411951dac0b25be59a2b330ee97072a5115c18da8a6579a4ebfd72d35076bd6c93ce4cf0b143e105177d68404bed1d5a8f39d1d4fc1c9f10c6db6cbe2050b9c7a3a9a99e9a193dc722eeff38db97bb01924950d68a7e0aa0bb1d1cc5214f96c9159e4e19bf91239b179bb219200a489f5bdd7892740dcb1093863918ca52727973935fa1a8aa7e5c4d8bfe7be";
const KAT_PST1_VOPRF_PRIV: &str = "00000001fb08641086733cd570b12eaa750819f2bd16807304cdb8d57af27ddbde0cb8d3e4f3e924b4949fb004ae1f5066b0ba4f";
const KAT_PST1_VOPRF_PUB: &str = "0000000104c5a8495b9a813e2a2872335ad79c8cde2c715b7e3de049b088983442f75cd011583bf872ffbc5b0df85ec372cf4e4e671ce19465fe84b946832e2048c1aaf4c3a41e6c4df63cb3aa5513ad7e6f6263ba8f5da9de75475214ff6541c72c7ce7af";
const KAT_PST1_PMB_PRIV: &str = "000000019113bff58c8129a97484e2e664d3ac3247dc4583e0cc37a792c83d1da159a9c4968b6f1e6f634f27db7729597987208d7cd78f0c29cbc2e472e4395222f37fe339f7452c0bd8845ef51854d54f61fbe8cf200e4e748551caa345cf8e0e747138cb5f7f4d835d7ce480e2c53a8e8a7a8b46eed55607928ab3e8bb505dae53d44f4612cfae34a4bc91d4c856cce98c8022754109779a95358a87b4c3df84df10a8b23eaeb244e91f89bf91c7ca115a6481ecb3f5412e54e1471d18a1bc80ec99460420a6abef469b3ad8c2e161e9ea64b4a29c3d495106c7028b4733b9b0592a93bed60dc01f322c9358bef37ea778fa826949267b5a68e281b445af89a424134bba6b03eb4ed36908397562fe4bac9d88146e4e02ae35ecd27f9efa18cdd705fc";
const KAT_PST1_PMB_PUB: &str = "00000001048096f2b64f8c633a8019755e02b60256dce7596e905567267c547f2325c22eb6bcedbdf6e66a805a1a848dbaaa982471d5c1af259517d1c248abb3219638b403834a11403aef515c2dacf2aedabc4593ade1733c490abfb1001e08d47575a5d604e9e90cd964f92ab55d384966c5e9987fc55ea70eeaf061078291cc4e954dad3842889f9b75a24628dedb9bada828681f9132ca2b5dfb084bcb9b243d96e64c2de5447318768e634f2b3d4d511ec96f37f01f5009f10e0360465d87fe843349c804a98967718e6ce647b668cea8b658dadf13f63d5f2b5a79c9f35ef735a8d1a4555652bcb3a7776449799599cd41b0a7da3afac5583a845903e83592a59c0634ed9c7f4917f552a4a30b4036281efe7791b6d323ced903915ee76252a1124d0fe0";
