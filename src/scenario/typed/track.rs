//! The layer that runs serde's visitors with [`Typed`] errors: a deserializer, a visitor, a seed
//! and the accesses a visitor is given, each handing its work to toml's and its errors back.

use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

use super::{Noted, Typed, handed_back};

/// A deserializer whose visitors report [`Typed`] errors.
pub(super) struct Track<'n, D> {
    pub(super) inner: D,
    pub(super) noted: &'n Noted,
}

/// A visitor run with [`Typed`] errors.
struct Wrap<'n, V> {
    inner: V,
    noted: &'n Noted,
}

impl<'n, V> Wrap<'n, V> {
    fn new(inner: V, noted: &'n Noted) -> Self {
        Wrap { inner, noted }
    }
}

macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.inner.$method(Wrap::new(visitor, self.noted)).map_err(Typed::Inner)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Track<'_, D> {
    type Error = Typed<D::Error>;

    forward_deserialize! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_unit_struct(name, visitor)
            .map_err(Typed::Inner)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_newtype_struct(name, visitor)
            .map_err(Typed::Inner)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_tuple(len, visitor)
            .map_err(Typed::Inner)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_tuple_struct(name, len, visitor)
            .map_err(Typed::Inner)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_struct(name, fields, visitor)
            .map_err(Typed::Inner)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .deserialize_enum(name, variants, visitor)
            .map_err(Typed::Inner)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($type:ty))*) => {$(
        fn $method<E: de::Error>(self, value: $type) -> Result<Self::Value, E> {
            self.inner
                .$method::<Typed<E>>(value)
                .map_err(|error| handed_back(self.noted, error))
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        let noted = self.noted;
        self.inner
            .visit_none::<Typed<E>>()
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        let noted = self.noted;
        self.inner
            .visit_unit::<Typed<E>>()
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
        let noted = self.noted;
        self.inner
            .visit_some(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
        let noted = self.noted;
        self.inner
            .visit_newtype_struct(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, inner: A) -> Result<Self::Value, A::Error> {
        let noted = self.noted;
        self.inner
            .visit_seq(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_map<A: MapAccess<'de>>(self, inner: A) -> Result<Self::Value, A::Error> {
        let noted = self.noted;
        self.inner
            .visit_map(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, inner: A) -> Result<Self::Value, A::Error> {
        let noted = self.noted;
        self.inner
            .visit_enum(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }
}

/// A seed whose deserializer reports [`Typed`] errors to its visitors.
struct Seed<'n, S> {
    inner: S,
    noted: &'n Noted,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        let noted = self.noted;
        self.inner
            .deserialize(Track { inner, noted })
            .map_err(|error| handed_back(noted, error))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Track<'_, A> {
    type Error = Typed<A::Error>;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let seed = Seed {
            inner: seed,
            noted: self.noted,
        };
        self.inner.next_element_seed(seed).map_err(Typed::Inner)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Track<'_, A> {
    type Error = Typed<A::Error>;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let seed = Seed {
            inner: seed,
            noted: self.noted,
        };
        self.inner.next_key_seed(seed).map_err(Typed::Inner)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        let seed = Seed {
            inner: seed,
            noted: self.noted,
        };
        self.inner.next_value_seed(seed).map_err(Typed::Inner)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, 'n, A: EnumAccess<'de>> EnumAccess<'de> for Track<'n, A> {
    type Error = Typed<A::Error>;
    type Variant = Track<'n, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), Self::Error> {
        let noted = self.noted;
        let seed = Seed { inner: seed, noted };
        let (value, inner) = self.inner.variant_seed(seed).map_err(Typed::Inner)?;
        Ok((value, Track { inner, noted }))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Track<'_, A> {
    type Error = Typed<A::Error>;

    fn unit_variant(self) -> Result<(), Self::Error> {
        self.inner.unit_variant().map_err(Typed::Inner)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        let seed = Seed {
            inner: seed,
            noted: self.noted,
        };
        self.inner.newtype_variant_seed(seed).map_err(Typed::Inner)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner.tuple_variant(len, visitor).map_err(Typed::Inner)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = Wrap::new(visitor, self.noted);
        self.inner
            .struct_variant(fields, visitor)
            .map_err(Typed::Inner)
    }
}
