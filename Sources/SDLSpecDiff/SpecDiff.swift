import SDLSpec
