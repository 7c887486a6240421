//! The ops a baseline records as likely on the ANE, as a digest: a 32-bit fingerprint of each
//! op's name (FNV-1a), sorted, packed big-endian and written in base64. Most ops of a model are
//! likely on the ANE; their names made up nine tenths of a baseline (411 KB for a 27-model zoo),
//! so the file lists by name only the ops off the ANE (what a reviewer reads) and keeps the rest
//! as 5⅓ characters each. An op is looked up by its fingerprint: a name not recorded matches one
//! that is with a chance of about (ops in the function) / 2³².

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The fingerprint of an op name: FNV-1a over its UTF-8 bytes, folded to 32 bits.
pub fn fingerprint(name: &str) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    ((h >> 32) ^ h) as u32
}

/// The digest of `names`.
pub fn encode<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut prints: Vec<u32> = names.into_iter().map(fingerprint).collect();
    prints.sort_unstable();
    prints.dedup();
    let bytes: Vec<u8> = prints.iter().flat_map(|p| p.to_be_bytes()).collect();
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
        }
    }
    out
}

/// The fingerprints of a digest, sorted; `None` when it is not one [`encode`] writes.
pub fn decode(digest: &str) -> Option<Vec<u32>> {
    let mut bytes = Vec::with_capacity(digest.len() * 3 / 4);
    for chunk in digest.as_bytes().chunks(4) {
        if chunk.len() < 2 {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            bytes.push((n >> (16 - 8 * i)) as u8);
        }
    }
    if bytes.len() % 4 != 0 {
        return None;
    }
    let prints: Vec<u32> = bytes
        .chunks(4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    prints.is_sorted().then_some(prints)
}

/// Whether `name`'s fingerprint is among `prints` (sorted).
pub fn holds(prints: &[u32], name: &str) -> bool {
    prints.binary_search(&fingerprint(name)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_reads_back_and_holds_its_names() {
        for n in [0usize, 1, 2, 3, 4, 5, 100] {
            let names: Vec<String> = (0..n).map(|i| format!("conv_{i}_cast_fp16")).collect();
            let digest = encode(names.iter().map(String::as_str));
            let prints = decode(&digest).expect("decodes");
            assert_eq!(prints.len(), n);
            assert!(names.iter().all(|name| holds(&prints, name)));
            assert!(!holds(&prints, "conv_0_cast_fp32"));
            // 32 bits each: 16 characters per 3 ops.
            assert_eq!(digest.len(), (4 * n * 4).div_ceil(3));
        }
        assert_eq!(decode("A"), None);
        assert_eq!(decode("!!!!!!"), None);
    }

    #[test]
    fn fingerprints_are_stable() {
        // The file's digests are read by later versions: the function must not change.
        assert_eq!(fingerprint(""), 0x4fd0_bfc1);
        assert_eq!(fingerprint("a"), 0x2962_30c0);
        assert_eq!(encode(["a"]), encode(["a", "a"]));
    }
}
