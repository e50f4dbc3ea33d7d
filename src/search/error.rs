//! Why a search failed, typed where the run acts on the reason.
//!
//! Most failures are a one-line message for the user and nothing more ([`SearchError::Other`]). A
//! full disk is its own kind ([`SearchError::DiskFull`]): the run adds how to go on once there is
//! room. A stop asked for from outside ([`super::stop`]) ends the search as
//! [`SearchError::Interrupted`]. The engines and the level loop pass a `SearchError` up; it
//! becomes a string only at the edge, where the job prints it.

use std::fmt;

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// A disk filled up while the search wrote to it; the message names the folder and the bytes
    /// still needed. The run can go on once there is room.
    DiskFull(String),
    /// A stop was asked for ([`super::stop::ask`]): the search ended between two levels.
    Interrupted,
    /// Any other reason, in one line for the user.
    Other(String),
}

impl SearchError {
    /// The message, whatever the kind.
    pub fn message(&self) -> &str {
        match self {
            SearchError::DiskFull(message) | SearchError::Other(message) => message,
            SearchError::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for SearchError {}

impl From<String> for SearchError {
    fn from(message: String) -> SearchError {
        SearchError::Other(message)
    }
}

impl From<&str> for SearchError {
    fn from(message: &str) -> SearchError {
        SearchError::Other(message.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_another_failure_and_a_full_disk_keeps_its_kind() {
        let failed = || -> Result<(), SearchError> { Err(String::from("cannot read x"))? };
        assert_eq!(failed(), Err(SearchError::Other("cannot read x".into())));
        let full = SearchError::DiskFull("the disk of the slab folder /s is full".into());
        assert_eq!(full.to_string(), "the disk of the slab folder /s is full");
        assert!(matches!(full, SearchError::DiskFull(_)));
    }
}
