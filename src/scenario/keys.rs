//! The keys a serde struct takes, read from serde itself, so the docs can be checked against
//! what a `[model]` table really accepts.

use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// The fields of the struct `T` deserializes as, or none if it is not a struct.
pub(crate) fn fields_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut probe = Probe(None);
    let _ = T::deserialize(&mut probe);
    probe.0.unwrap_or(&[])
}

/// A deserializer that only listens for the struct's field names, then gives up.
struct Probe(Option<&'static [&'static str]>);

#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("only the field names were wanted")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for &mut Probe {
    type Error = Stop;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Stop> {
        self.0 = Some(fields);
        Err(Stop)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_structs_fields_are_read_from_serde() {
        #[derive(serde::Deserialize)]
        #[allow(dead_code, reason = "only the field names are read")]
        struct Table {
            period: String,
            count: Option<i64>,
        }
        assert_eq!(fields_of::<Table>(), ["period", "count"]);
        assert!(fields_of::<u32>().is_empty());
    }
}
