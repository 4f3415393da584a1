//! Strict JSON reading shared by every instance and solution reader.
//!
//! - [`parse_value`] parses JSON text into a [`Value`], rejecting a duplicate
//!   key at any nesting level (`{"join": 0, "join": 1}` inside `events` is an
//!   error naming `events[0]`, not a silent "last value wins").
//! - [`from_value`] deserializes a typed struct from a [`Value`] with
//!   `serde_path_to_error`, so a type error names its field and index
//!   (`start.assign[0]: invalid value: integer -1, expected usize`).
//!
//! Both return input errors naming the file.

use crate::error::{Error, Result};
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Parses `text` (of `file`) into a JSON value, rejecting duplicate keys at
/// every nesting level. Syntax errors keep serde_json's line and column.
pub fn parse_value(text: &str, file: &str) -> Result<Value> {
    let dup: RefCell<Option<(String, String)>> = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = Strict {
        at: At::ROOT,
        dup: &dup,
    };
    let parsed = seed.deserialize(&mut de).and_then(|v| de.end().map(|_| v));
    match parsed {
        Ok(v) => Ok(v),
        Err(e) => match dup.into_inner() {
            Some((path, key)) => Err(Error::input(
                file,
                path,
                format!(
                    "duplicate key \"{key}\" (line {} column {}): every key may appear once",
                    e.line(),
                    e.column()
                ),
            )),
            None => Err(Error::input(file, "", e.to_string())),
        },
    }
}

/// Deserializes `T` from `value`; an error names the field path (prefixed by
/// `prefix`, e.g. `solution`) inside `file`.
pub fn from_value<T: DeserializeOwned>(value: Value, file: &str, prefix: &str) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let field = match (prefix.is_empty(), path.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, false) => path,
            (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
            (false, false) => format!("{prefix}.{path}"),
        };
        Error::input(file, field, e.into_inner().to_string())
    })
}

/// [`parse_value`] then [`from_value`].
pub fn parse_typed<T: DeserializeOwned>(text: &str, file: &str) -> Result<T> {
    from_value(parse_value(text, file)?, file, "")
}

/// A value at `at`; records the first duplicate key in `dup`.
struct Strict<'a, 'p> {
    at: At<'p>,
    dup: &'a RefCell<Option<(String, String)>>,
}

/// Where a value sits: its parent and the index or key under it. Rendered
/// (`a[1].j`) only for an error, so that reading a large array does not
/// build a path string per element.
struct At<'p> {
    parent: Option<&'p At<'p>>,
    seg: Seg<'p>,
}

enum Seg<'p> {
    Root,
    Index(usize),
    Key(&'p str),
}

impl At<'_> {
    const ROOT: At<'static> = At {
        parent: None,
        seg: Seg::Root,
    };

    fn render(&self) -> String {
        let parent = self.parent.map(At::render).unwrap_or_default();
        match self.seg {
            Seg::Root => parent,
            Seg::Index(i) => format!("{parent}[{i}]"),
            Seg::Key(k) if parent.is_empty() => k.to_string(),
            Seg::Key(k) => format!("{parent}.{k}"),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_, '_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let seed = Strict {
                at: At {
                    parent: Some(&self.at),
                    seg: Seg::Index(out.len()),
                },
                dup: self.dup,
            };
            match seq.next_element_seed(seed)? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                *self.dup.borrow_mut() = Some((self.at.render(), key.clone()));
                return Err(de::Error::custom(format!("duplicate key \"{key}\"")));
            }
            let v = map.next_value_seed(Strict {
                at: At {
                    parent: Some(&self.at),
                    seg: Seg::Key(&key),
                },
                dup: self.dup,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_at_every_level() {
        let e = parse_value(r#"{"a": [{"b": 1}, {"j": 0, "j": 1}]}"#, "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.json: a[1]: duplicate key \"j\""), "{e}");
        let e = parse_value(r#"{"a": 1, "a": 2}"#, "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("f.json: duplicate key \"a\""), "{e}");
        let v = parse_value(r#"{"a": [1, -2, 2.5, null, "x", true], "b": {}}"#, "f").unwrap();
        assert_eq!(v["a"][1], -2);
        assert_eq!(v["a"][2], 2.5);
    }
}
