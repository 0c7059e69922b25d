use mcp_runtime::handlers;

struct Notes;

#[handlers]
impl Notes {
    /// Changes the notes.
    #[tool]
    fn edit(&mut self) -> String {
        String::new()
    }

    /// Takes the notes.
    #[tool]
    fn take(self) -> String {
        String::new()
    }

    /// Two at once.
    #[tool]
    #[prompt]
    fn both(&self) -> String {
        String::new()
    }
}

trait Store {
    fn get(&self) -> String;
}

#[handlers]
impl Store for Notes {
    fn get(&self) -> String {
        String::new()
    }
}

struct Empty;

#[handlers]
impl Empty {
    fn nothing(&self) {}
}

struct Shared;

#[handlers]
impl Shared {
    /// Boxed.
    #[tool]
    fn boxed(self: Box<Self>) -> String {
        String::new()
    }

    /// Owned, mutable.
    #[tool]
    fn owned(mut self) -> String {
        let _ = &mut self;
        String::new()
    }
}

#[handlers]
struct NotAnImpl;

fn main() {}
