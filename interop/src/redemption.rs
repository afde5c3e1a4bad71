//! What an issuer's `redeem` extracts from a valid redemption request.

/// What `Issuer::redeem` extracts from a valid redemption request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redemption {
    /// The public metadata: the id of the key that signed the token.
    pub key_id: u32,
    /// The private metadata bit (always 0 for VOPRF methods).
    pub private_metadata: u8,
    /// The token's 64-byte nonce t, the double-spend identifier.
    pub nonce: Vec<u8>,
    /// The client data from the request.
    pub client_data: Vec<u8>,
}
