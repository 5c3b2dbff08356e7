// What the chat format adds per message (role, separators), in tokens. Its
// own module so that code which only adds it up (the page's replay of a
// model call) does not load the tokenizer's 2 MB vocabulary.
export const MESSAGE_OVERHEAD = 4;
