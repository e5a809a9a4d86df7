//! Maps whose keys must be unique. serde keeps the last of two equal keys silently, so a file
//! could say `"meltdown": "Vulnerable", "meltdown": "Not affected"` and be read (and hashed) as
//! only the second: the reader would never know the file said both. Records are read with this
//! instead, which refuses the second occurrence and names the key.

use serde::de::{Deserializer, Error, MapAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;

pub fn map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    struct Unique;
    impl<'de> Visitor<'de> for Unique {
        type Value = BTreeMap<String, String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map of strings with unique keys")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = access.next_entry::<String, String>()? {
                if out.contains_key(&k) {
                    return Err(A::Error::custom(format_args!(
                        "duplicate key {k:?}: a key may appear only once"
                    )));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Unique)
}
