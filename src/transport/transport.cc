// placeholder: this room is being written
namespace forgemeter {}
